import { ConflictError, InvalidArgumentError, NotFoundError, newId, type Checkpoint, type CommandFact, type Effect, type Journal, type Turn } from '../../model/index.js';
import type { CreateTurnInput, JournalCommitWrites, ListCheckpointsOptions, NewCheckpoint, NewEffect, NewJournal, UpdateTurnInput } from '../store.js';
import { insertEntry, jsonOf } from './entries.js';
import {
  toCheckpoint,
  toCommandFact,
  toEffect,
  toJournal,
  toTurn,
  type CheckpointRow,
  type CommandFactRow,
  type EffectRow,
  type JournalRow,
  type TurnRow,
} from './rows.js';
import { moveHead, requireMessageRow, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

/** Turns, checkpoints, journals, effects and command facts: the per-session records. */

export function createTurn(context: SqliteContext, input: CreateTurnInput): Turn {
  const now = Date.now();
  return context.write('start a turn', () => {
    const session = requireSession(context, input.sessionId);
    const message = requireMessageRow(context, input.userMessageId);
    if (message.tree_id !== session.tree_id || message.role !== 'user') {
      throw new InvalidArgumentError({
        parameter: 'userMessageId',
        value: input.userMessageId,
        reason: 'a turn starts at a user message of the same session tree.',
      });
    }
    const row: TurnRow = {
      id: input.id ?? newId('turn', now),
      session_id: session.id,
      user_message_id: message.id,
      status: 'running',
      branch_generation: session.branch_generation,
      boundary: null,
      metadata: jsonOf(input.metadata),
      started_at: now,
      ended_at: null,
    };
    context
      .statement(
        `INSERT INTO turns (id, session_id, user_message_id, status, branch_generation, boundary, metadata, started_at, ended_at)
         VALUES (@id, @session_id, @user_message_id, @status, @branch_generation, @boundary, @metadata, @started_at, @ended_at)`,
      )
      .run(row);
    return toTurn(row);
  });
}

function requireTurn(context: SqliteContext, id: string): TurnRow {
  const row = context.statement('SELECT * FROM turns WHERE id = ?').get(id) as TurnRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'turn', id });
  return row;
}

export function updateTurn(context: SqliteContext, id: string, patch: UpdateTurnInput): Turn {
  return context.write('update a turn', () => {
    const row = requireTurn(context, id);
    const next: TurnRow = {
      ...row,
      status: patch.status ?? row.status,
      boundary: patch.boundary === undefined ? row.boundary : patch.boundary === null ? null : JSON.stringify(patch.boundary),
      metadata: patch.metadata === undefined ? row.metadata : JSON.stringify({ ...JSON.parse(row.metadata), ...patch.metadata }),
      ended_at: patch.endedAt === undefined ? row.ended_at : patch.endedAt,
    };
    context.statement('UPDATE turns SET status = @status, boundary = @boundary, metadata = @metadata, ended_at = @ended_at WHERE id = @id').run(next);
    return toTurn(next);
  });
}

export function getTurn(context: SqliteContext, id: string): Turn {
  return toTurn(requireTurn(context, id));
}

export function listTurns(context: SqliteContext, sessionId: string, status?: Turn['status']): Turn[] {
  requireSession(context, sessionId);
  const rows = (
    status === undefined
      ? context.statement('SELECT * FROM turns WHERE session_id = ? ORDER BY started_at, id').all(sessionId)
      : context.statement('SELECT * FROM turns WHERE session_id = ? AND status = ? ORDER BY started_at, id').all(sessionId, status)
  ) as TurnRow[];
  return rows.map(toTurn);
}

export function addCheckpoints(context: SqliteContext, checkpoints: NewCheckpoint[]): Checkpoint[] {
  const now = Date.now();
  return context.write('record checkpoints', () => {
    const nextSeq = new Map<string, number>();
    const insert = context.statement(
      `INSERT INTO checkpoints (id, session_id, seq, turn_id, anchor_message_id, op, path, to_path, before_hash, after_hash,
        before_mode, after_mode, source, tool_name, tool_call_id, status, skip_reason, created_at, patch)
       VALUES (@id, @session_id, @seq, @turn_id, @anchor_message_id, @op, @path, @to_path, @before_hash, @after_hash,
        @before_mode, @after_mode, @source, @tool_name, @tool_call_id, @status, @skip_reason, @created_at, @patch)`,
    );
    return checkpoints.map((checkpoint) => {
      let seq = nextSeq.get(checkpoint.sessionId);
      if (seq === undefined) {
        requireSession(context, checkpoint.sessionId);
        seq = (context.statement('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM checkpoints WHERE session_id = ?').get(checkpoint.sessionId) as { next: number }).next;
      }
      nextSeq.set(checkpoint.sessionId, seq + 1);
      const row: CheckpointRow = {
        id: checkpoint.id ?? newId('checkpoint', now),
        session_id: checkpoint.sessionId,
        seq,
        turn_id: checkpoint.turnId ?? null,
        anchor_message_id: checkpoint.anchorMessageId ?? null,
        op: checkpoint.op,
        path: checkpoint.path,
        to_path: checkpoint.toPath ?? null,
        before_hash: checkpoint.beforeHash,
        after_hash: checkpoint.afterHash,
        before_mode: checkpoint.beforeMode ?? null,
        after_mode: checkpoint.afterMode ?? null,
        source: checkpoint.source,
        tool_name: checkpoint.toolName ?? null,
        tool_call_id: checkpoint.toolCallId ?? null,
        status: checkpoint.status ?? 'recorded',
        skip_reason: checkpoint.skipReason ?? null,
        created_at: now,
        patch: checkpoint.patch ?? null,
      };
      insert.run(row);
      return toCheckpoint(row);
    });
  });
}

export function getCheckpoint(context: SqliteContext, id: string): Checkpoint {
  const row = context.statement('SELECT * FROM checkpoints WHERE id = ?').get(id) as CheckpointRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'checkpoint', id });
  return toCheckpoint(row);
}

export function listCheckpoints(context: SqliteContext, sessionId: string, options: ListCheckpointsOptions): Checkpoint[] {
  requireSession(context, sessionId);
  const where = ['session_id = @sessionId', 'seq > @afterSeq'];
  if (options.turnId !== undefined) where.push('turn_id = @turnId');
  if (options.anchorMessageId !== undefined) where.push('anchor_message_id = @anchorMessageId');
  const params = { ...options, sessionId, afterSeq: options.afterSeq ?? 0, last: options.last ?? -1 };
  const sql =
    options.last === undefined
      ? `SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY seq`
      : `SELECT * FROM (SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT @last) ORDER BY seq`;
  return (context.statement(sql).all(params) as CheckpointRow[]).map(toCheckpoint);
}

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

export function appendEffect(context: SqliteContext, effect: NewEffect): Effect {
  const now = Date.now();
  return context.write('record an effect', () => {
    requireSession(context, effect.sessionId);
    const row: EffectRow = {
      id: newId('effect', now),
      session_id: effect.sessionId,
      turn_id: effect.turnId ?? null,
      tool_name: effect.toolName,
      tool_call_id: effect.toolCallId ?? null,
      idempotency_key: effect.idempotencyKey,
      status: effect.status,
      request: JSON.stringify(effect.request ?? null),
      result: JSON.stringify(effect.result ?? null),
      created_at: now,
    };
    context
      .statement(
        `INSERT INTO effects (id, session_id, turn_id, tool_name, tool_call_id, idempotency_key, status, request, result, created_at)
         VALUES (@id, @session_id, @turn_id, @tool_name, @tool_call_id, @idempotency_key, @status, @request, @result, @created_at)`,
      )
      .run(row);
    return toEffect(row);
  });
}

export function listEffects(context: SqliteContext, options: { sessionId?: string; idempotencyKey?: string }): Effect[] {
  const where: string[] = [];
  if (options.sessionId !== undefined) where.push('session_id = @sessionId');
  if (options.idempotencyKey !== undefined) where.push('idempotency_key = @idempotencyKey');
  const sql = `SELECT * FROM effects ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`;
  return (context.statement(sql).all(options) as EffectRow[]).map(toEffect);
}

export function getCommandFact(context: SqliteContext, commandId: string): CommandFact | null {
  const row = context.statement('SELECT * FROM command_facts WHERE command_id = ?').get(commandId) as CommandFactRow | undefined;
  return row ? toCommandFact(row) : null;
}

export function putCommandFact(context: SqliteContext, fact: Omit<CommandFact, 'createdAt'>): CommandFact {
  const now = Date.now();
  return context.write('record a command', () => {
    const existing = getCommandFact(context, fact.commandId);
    if (existing) return existing;
    const row: CommandFactRow = {
      command_id: fact.commandId,
      session_id: fact.sessionId,
      kind: fact.kind,
      result: JSON.stringify(fact.result),
      created_at: now,
    };
    context.statement('INSERT INTO command_facts (command_id, session_id, kind, result, created_at) VALUES (@command_id, @session_id, @kind, @result, @created_at)').run(row);
    return toCommandFact(row);
  });
}

export function setBlobPins(context: SqliteContext, owner: string, hashes: readonly string[]): void {
  context.write('pin blobs', () => {
    context.statement('DELETE FROM blob_pins WHERE owner = ?').run(owner);
    const insert = context.statement('INSERT OR IGNORE INTO blob_pins (owner, hash) VALUES (?, ?)');
    for (const hash of hashes) insert.run(owner, hash);
  });
}

/** Every hash a record refers to: checkpoint before/after, journal items, parts, pins. */
export function blobRoots(context: SqliteContext): Set<string> {
  return context.read('collect blob roots', () => {
    const rows = context
      .statement(
        `SELECT before_hash AS hash FROM checkpoints WHERE before_hash IS NOT NULL
         UNION SELECT after_hash FROM checkpoints WHERE after_hash IS NOT NULL
         UNION SELECT hash FROM message_blobs
         UNION SELECT hash FROM blob_pins
         UNION SELECT json_extract(item.value, '$.expectedHash') FROM journals, json_each(journals.items) AS item
           WHERE json_extract(item.value, '$.expectedHash') IS NOT NULL
         UNION SELECT json_extract(item.value, '$.targetHash') FROM journals, json_each(journals.items) AS item
           WHERE json_extract(item.value, '$.targetHash') IS NOT NULL`,
      )
      .all() as Array<{ hash: string }>;
    return new Set(rows.map((row) => row.hash));
  });
}
