import { checkpointRow } from '../new-rows.js';
import {
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  newId,
  type Checkpoint,
  type CommandFact,
  type Effect,
  type Journal,
  type Turn,
} from '../../model/index.js';
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
} from '../sqlite/rows.js';
import type { CreateTurnInput, JournalCommitWrites, ListCheckpointsOptions, NewCheckpoint, NewEffect, NewJournal, UpdateTurnInput } from '../store.js';
import { shareRootsLock, type PgContext, type Sql } from './pg-context.js';
import { insertEntry, lockSessions, moveHeadIn, requireMessageRow, requireSession } from './pg-sessions.js';

/** Turns, checkpoints, journals, effects, command facts and pins. */

export async function createTurn(context: PgContext, input: CreateTurnInput): Promise<Turn> {
  const now = Date.now();
  return context.write('start a turn', async (sql) => {
    const session = await requireSession(sql, input.sessionId);
    const message = await requireMessageRow(sql, input.userMessageId);
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
      metadata: JSON.stringify(input.metadata ?? {}),
      started_at: now,
      ended_at: null,
    };
    await sql.query(
      `INSERT INTO turns (id, session_id, user_message_id, status, branch_generation, boundary, metadata, started_at, ended_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.id, row.session_id, row.user_message_id, row.status, row.branch_generation, row.boundary, row.metadata, row.started_at, row.ended_at],
    );
    return toTurn(row);
  });
}

async function requireTurn(sql: Sql, id: string, lock = false): Promise<TurnRow> {
  const row = (await sql.query<TurnRow>(`SELECT * FROM turns WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id])).rows[0];
  if (!row) throw new NotFoundError({ entity: 'turn', id });
  return row;
}

export async function updateTurn(context: PgContext, id: string, patch: UpdateTurnInput): Promise<Turn> {
  return context.write('update a turn', async (sql) => {
    const row = await requireTurn(sql, id, true);
    const next: TurnRow = {
      ...row,
      status: patch.status ?? row.status,
      boundary: patch.boundary === undefined ? row.boundary : patch.boundary === null ? null : JSON.stringify(patch.boundary),
      metadata: patch.metadata === undefined ? row.metadata : JSON.stringify({ ...JSON.parse(row.metadata), ...patch.metadata }),
      ended_at: patch.endedAt === undefined ? row.ended_at : patch.endedAt,
    };
    await sql.query('UPDATE turns SET status = $1, boundary = $2, metadata = $3, ended_at = $4 WHERE id = $5', [
      next.status,
      next.boundary,
      next.metadata,
      next.ended_at,
      id,
    ]);
    return toTurn(next);
  });
}

export async function getTurn(context: PgContext, id: string): Promise<Turn> {
  return context.read('read a turn', async (sql) => toTurn(await requireTurn(sql, id)));
}

export async function listTurns(context: PgContext, sessionId: string, status?: Turn['status']): Promise<Turn[]> {
  return context.read('list turns', async (sql) => {
    await requireSession(sql, sessionId);
    const { rows } =
      status === undefined
        ? await sql.query<TurnRow>('SELECT * FROM turns WHERE session_id = $1 ORDER BY started_at, id COLLATE "C"', [sessionId])
        : await sql.query<TurnRow>('SELECT * FROM turns WHERE session_id = $1 AND status = $2 ORDER BY started_at, id COLLATE "C"', [sessionId, status]);
    return rows.map(toTurn);
  });
}

/** Inserts checkpoint rows inside the caller's transaction; their sessions are locked (id order) for the per-session seq. */
export async function addCheckpointRows(sql: Sql, schema: string, checkpoints: NewCheckpoint[], now: number): Promise<Checkpoint[]> {
  if (checkpoints.length === 0) return [];
  await lockSessions(
    sql,
    checkpoints.map((checkpoint) => checkpoint.sessionId),
  );
  await shareRootsLock(sql, schema);
  const nextSeq = new Map<string, number>();
  const made: Checkpoint[] = [];
  for (const checkpoint of checkpoints) {
    let seq = nextSeq.get(checkpoint.sessionId);
    if (seq === undefined) {
      seq = (await sql.query<{ next: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM checkpoints WHERE session_id = $1', [checkpoint.sessionId]))
        .rows[0]!.next;
    }
    nextSeq.set(checkpoint.sessionId, seq + 1);
    const row = checkpointRow(checkpoint, seq, now);
    await sql.query(
      `INSERT INTO checkpoints (id, session_id, seq, turn_id, anchor_message_id, op, path, to_path, before_hash, after_hash,
        before_mode, after_mode, source, tool_name, tool_call_id, status, skip_reason, created_at, patch)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
      [
        row.id,
        row.session_id,
        row.seq,
        row.turn_id,
        row.anchor_message_id,
        row.op,
        row.path,
        row.to_path,
        row.before_hash,
        row.after_hash,
        row.before_mode,
        row.after_mode,
        row.source,
        row.tool_name,
        row.tool_call_id,
        row.status,
        row.skip_reason,
        row.created_at,
        row.patch,
      ],
    );
    made.push(toCheckpoint(row));
  }
  return made;
}

export async function getCheckpoint(context: PgContext, id: string): Promise<Checkpoint> {
  const [row] = await context.query<CheckpointRow>('read a checkpoint', 'SELECT * FROM checkpoints WHERE id = $1', [id]);
  if (!row) throw new NotFoundError({ entity: 'checkpoint', id });
  return toCheckpoint(row);
}

export async function listCheckpoints(context: PgContext, sessionId: string, options: ListCheckpointsOptions): Promise<Checkpoint[]> {
  return context.read('list checkpoints', async (sql) => {
    await requireSession(sql, sessionId);
    const values: unknown[] = [sessionId, options.afterSeq ?? 0];
    const where = ['session_id = $1', 'seq > $2'];
    if (options.turnId !== undefined) {
      values.push(options.turnId);
      where.push(`turn_id = $${values.length}`);
    }
    if (options.anchorMessageId !== undefined) {
      values.push(options.anchorMessageId);
      where.push(`anchor_message_id = $${values.length}`);
    }
    let text = `SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY seq`;
    if (options.last !== undefined) {
      values.push(options.last);
      text = `SELECT * FROM (SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length}) newest ORDER BY seq`;
    }
    return (await sql.query<CheckpointRow>(text, values)).rows.map(toCheckpoint);
  });
}

/**
 * Records a pending journal, with the hashes its items name as blob roots. A commit is durable
 * when PostgreSQL acknowledges it (`synchronous_commit`), so `durable` changes nothing here.
 */
export async function createJournal(context: PgContext, journal: NewJournal): Promise<Journal> {
  const now = Date.now();
  const row: JournalRow = {
    id: journal.id ?? newId('journal', now),
    session_id: journal.sessionId ?? null,
    kind: journal.kind,
    state: 'pending',
    root: journal.root,
    items: JSON.stringify(journal.items),
    metadata: JSON.stringify(journal.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  const hashes = new Set<string>();
  for (const item of journal.items) {
    for (const hash of [item.expectedHash, item.targetHash]) if (typeof hash === 'string') hashes.add(hash);
  }
  await context.write('record a journal', async (sql) => {
    await shareRootsLock(sql, context.schema);
    await sql.query(
      `INSERT INTO journals (id, session_id, kind, state, root, items, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.id, row.session_id, row.kind, row.state, row.root, row.items, row.metadata, row.created_at, row.updated_at],
    );
    if (hashes.size > 0) await sql.query('INSERT INTO journal_blobs (journal_id, hash) SELECT $1, unnest($2::text[])', [row.id, [...hashes]]);
  });
  return toJournal(row);
}

async function requireJournal(sql: Sql, id: string, lock = false): Promise<JournalRow> {
  const row = (await sql.query<JournalRow>(`SELECT * FROM journals WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id])).rows[0];
  if (!row) throw new NotFoundError({ entity: 'journal', id });
  return row;
}

/** Every commit is already durable; this only checks the journal is still pending. */
export async function syncJournal(context: PgContext, id: string): Promise<void> {
  await context.write('sync a journal', async (sql) => {
    const row = await requireJournal(sql, id);
    if (row.state !== 'pending') throw finished(id, row.state);
  });
}

/** Finishes a journal with its writes in one transaction; the sessions they touch are locked first, in id order. */
export async function setJournalState(context: PgContext, id: string, state: Journal['state'], writes: JournalCommitWrites = {}): Promise<Journal> {
  const now = Date.now();
  return context.write('finish a journal', async (sql) => {
    const row = await requireJournal(sql, id, true);
    if (row.state !== 'pending') throw finished(id, row.state);
    await lockSessions(sql, [...(writes.entries ?? []).map((write) => write.sessionId), ...(writes.headMoves ?? []).map((move) => move.sessionId)]);
    await sql.query('UPDATE journals SET state = $1, updated_at = $2 WHERE id = $3', [state, now, id]);
    for (const { sessionId, entry } of writes.entries ?? []) await insertEntry(sql, sessionId, entry, now);
    for (const move of writes.headMoves ?? []) await moveHeadIn(sql, move, now);
    return toJournal({ ...row, state, updated_at: now });
  });
}

export async function getJournal(context: PgContext, id: string): Promise<Journal> {
  return context.read('read a journal', async (sql) => toJournal(await requireJournal(sql, id)));
}

export async function listJournals(context: PgContext, state?: Journal['state']): Promise<Journal[]> {
  const rows =
    state === undefined
      ? await context.query<JournalRow>('list journals', 'SELECT * FROM journals ORDER BY created_at, id COLLATE "C"')
      : await context.query<JournalRow>('list journals', 'SELECT * FROM journals WHERE state = $1 ORDER BY created_at, id COLLATE "C"', [state]);
  return rows.map(toJournal);
}

function finished(id: string, state: Journal['state']): ConflictError {
  return new ConflictError({
    code: 'JOURNAL_FINISHED',
    message: `Journal ${id} is already ${state}; a journal is finished once.`,
    details: { journalId: id, state },
  });
}

export async function appendEffect(context: PgContext, effect: NewEffect): Promise<Effect> {
  const now = Date.now();
  return context.write('record an effect', async (sql) => {
    await requireSession(sql, effect.sessionId);
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
    await sql.query(
      `INSERT INTO effects (id, session_id, turn_id, tool_name, tool_call_id, idempotency_key, status, request, result, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [row.id, row.session_id, row.turn_id, row.tool_name, row.tool_call_id, row.idempotency_key, row.status, row.request, row.result, row.created_at],
    );
    return toEffect(row);
  });
}

export async function listEffects(context: PgContext, options: { sessionId?: string; idempotencyKey?: string }): Promise<Effect[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (options.sessionId !== undefined) {
    values.push(options.sessionId);
    where.push(`session_id = $${values.length}`);
  }
  if (options.idempotencyKey !== undefined) {
    values.push(options.idempotencyKey);
    where.push(`idempotency_key = $${values.length}`);
  }
  const text = `SELECT id, session_id, turn_id, tool_name, tool_call_id, idempotency_key, status, request, result, created_at FROM effects
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, ord`;
  return (await context.query<EffectRow>('list effects', text, values)).map(toEffect);
}

export async function getCommandFact(context: PgContext, commandId: string): Promise<CommandFact | null> {
  const [row] = await context.query<CommandFactRow>('read a command', 'SELECT * FROM command_facts WHERE command_id = $1', [commandId]);
  return row ? toCommandFact(row) : null;
}

export async function putCommandFact(context: PgContext, fact: Omit<CommandFact, 'createdAt'>): Promise<CommandFact> {
  const now = Date.now();
  return context.write('record a command', async (sql) => {
    await sql.query(
      'INSERT INTO command_facts (command_id, session_id, kind, result, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (command_id) DO NOTHING',
      [fact.commandId, fact.sessionId, fact.kind, JSON.stringify(fact.result), now],
    );
    const row = (await sql.query<CommandFactRow>('SELECT * FROM command_facts WHERE command_id = $1', [fact.commandId])).rows[0]!;
    return toCommandFact(row);
  });
}

export async function setBlobPins(context: PgContext, owner: string, hashes: readonly string[], replace: boolean): Promise<void> {
  if (!replace && hashes.length === 0) return;
  await context.write('pin blobs', async (sql) => {
    await shareRootsLock(sql, context.schema);
    if (replace) await sql.query('DELETE FROM blob_pins WHERE owner = $1', [owner]);
    if (hashes.length > 0)
      await sql.query('INSERT INTO blob_pins (owner, hash) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [owner, [...new Set(hashes)]]);
  });
}

/** Every hash a record refers to (writes in flight aside): checkpoints, parts, pins, journal items. */
export const BLOB_ROOTS_QUERY = `SELECT before_hash AS hash FROM checkpoints WHERE before_hash IS NOT NULL
  UNION SELECT after_hash FROM checkpoints WHERE after_hash IS NOT NULL
  UNION SELECT hash FROM message_blobs
  UNION SELECT hash FROM blob_pins
  UNION SELECT hash FROM journal_blobs`;
