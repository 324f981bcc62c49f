import { ConflictError, NotFoundError, newId, type Journal } from '../../model/index.js';
import type { JournalCommitWrites, JournalWriteOptions, NewJournal } from '../store.js';
import { insertEntry, jsonOf } from './entries.js';
import { toJournal, type JournalRow } from './rows.js';
import { moveHead, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

export function createJournal(context: SqliteContext, journal: NewJournal, options: JournalWriteOptions = {}): Journal {
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
  // A journal must survive power loss before any file is touched: commit it with a full sync, or
  // let the caller do that with `syncJournal` (WAL frames are durable in order: one later full
  // sync covers this commit too).
  withSync(context, options.durable ?? true, () =>
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

/**
 * Makes a pending journal durable, with every commit before it: rewrites its `updated_at` in a
 * transaction committed with `synchronous = FULL`, which fsyncs the WAL (a commit that writes no
 * page would not sync anything, hence the write).
 */
export function syncJournal(context: SqliteContext, id: string): void {
  withSync(context, true, () =>
    context.write('sync a journal', () => {
      const row = requireJournal(context, id);
      if (row.state !== 'pending') throw finished(id, row.state);
      context.statement('UPDATE journals SET updated_at = ? WHERE id = ?').run(Math.max(Date.now(), row.updated_at + 1), id);
    }),
  );
}

export function setJournalState(
  context: SqliteContext,
  id: string,
  state: Journal['state'],
  writes: JournalCommitWrites = {},
  options: JournalWriteOptions = {},
): Journal {
  const now = Date.now();
  return withSync(context, options.durable ?? true, () =>
    context.write('finish a journal', () => {
      const row = requireJournal(context, id);
      if (row.state !== 'pending') throw finished(id, row.state);
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

function finished(id: string, state: Journal['state']): ConflictError {
  return new ConflictError({
    code: 'JOURNAL_FINISHED',
    message: `Journal ${id} is already ${state}; a journal is finished once.`,
    details: { journalId: id, state },
  });
}

/** Runs `fn` with `synchronous = FULL` when `full` (its commit fsyncs the WAL), else as is (NORMAL). */
function withSync<T>(context: SqliteContext, full: boolean, fn: () => T): T {
  if (context.readOnly || !full) return fn();
  context.db.pragma('synchronous = FULL');
  try {
    return fn();
  } finally {
    context.db.pragma('synchronous = NORMAL');
  }
}
