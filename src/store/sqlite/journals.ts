import { ConflictError, NotFoundError, newId, type Journal } from '../../model/index.js';
import type { JournalCommitWrites, NewJournal } from '../store.js';
import { insertEntry, jsonOf } from './entries.js';
import { toJournal, type JournalRow } from './rows.js';
import { moveHead, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

export function createJournal(context: SqliteContext, journal: NewJournal): Journal {
  const now = Date.now();
  const row: JournalRow = {
    id: journal.id ?? newId('journal', now),
    session_id: journal.sessionId ?? null,
    kind: journal.kind,
    state: 'pending',
    root: journal.root,
    items: JSON.stringify(journal.items),
    metadata: jsonOf(journal.metadata),
    created_at: now,
    updated_at: now,
  };
  // A journal must survive power loss before any file is touched: commit it with a full sync.
  withFullSync(context, () =>
    context.write('record a journal', () => {
      context
        .statement(
          `INSERT INTO journals (id, session_id, kind, state, root, items, metadata, created_at, updated_at)
           VALUES (@id, @session_id, @kind, @state, @root, @items, @metadata, @created_at, @updated_at)`,
        )
        .run(row);
    }),
  );
  return toJournal(row);
}

export function setJournalState(context: SqliteContext, id: string, state: Journal['state'], writes: JournalCommitWrites = {}): Journal {
  const now = Date.now();
  return withFullSync(context, () =>
    context.write('finish a journal', () => {
      const row = requireJournal(context, id);
      if (row.state !== 'pending') {
        throw new ConflictError({
          code: 'JOURNAL_FINISHED',
          message: `Journal ${id} is already ${row.state}; a journal is finished once.`,
          details: { journalId: id, state: row.state },
        });
      }
      context.statement('UPDATE journals SET state = ?, updated_at = ? WHERE id = ?').run(state, now, id);
      for (const { sessionId, entry } of writes.entries ?? []) {
        requireSession(context, sessionId);
        insertEntry(context, sessionId, entry, now);
      }
      // Nested writes run as savepoints of this transaction: one failure undoes everything.
      for (const move of writes.headMoves ?? []) moveHead(context, move);
      return toJournal({ ...row, state, updated_at: now });
    }),
  );
}

function requireJournal(context: SqliteContext, id: string): JournalRow {
  const row = context.statement('SELECT * FROM journals WHERE id = ?').get(id) as JournalRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'journal', id });
  return row;
}

export function getJournal(context: SqliteContext, id: string): Journal {
  return toJournal(requireJournal(context, id));
}

export function listJournals(context: SqliteContext, state?: Journal['state']): Journal[] {
  const rows = (
    state === undefined
      ? context.statement('SELECT * FROM journals ORDER BY created_at, id').all()
      : context.statement('SELECT * FROM journals WHERE state = ? ORDER BY created_at, id').all(state)
  ) as JournalRow[];
  return rows.map(toJournal);
}

function withFullSync<T>(context: SqliteContext, fn: () => T): T {
  if (context.readOnly) return fn();
  context.db.pragma('synchronous = FULL');
  try {
    return fn();
  } finally {
    context.db.pragma('synchronous = NORMAL');
  }
}
