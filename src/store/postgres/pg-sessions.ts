import { ConflictError, InvalidArgumentError, NotFoundError, newId, type Entry, type JsonObject, type Session } from '../../model/index.js';
import { toEntry, toMessage, toSession, type EntryRow, type MessageRow, type SessionRow } from '../sqlite/rows.js';
import type { CreateSessionInput, ListSessionsOptions, MoveHeadInput, MoveHeadResult, NewEntry } from '../store.js';
import type { PgContext, Sql } from './pg-context.js';

export const DEFAULT_TITLE = 'New session';
/** Announces session `$1` on the store's change channel (the schema is the connection's search path). */
export const NOTIFY_SQL = `pg_notify(left('waypoint_changes_' || current_schema(), 63), $1)`;
/** Every message column but the part payloads. */
export const MESSAGE_COLUMNS = 'id, tree_id, parent_id, session_id, role, kind, status, turn_id, depth, created_at, metadata, part_meta';

/**
 * The session's row; with `lock`, locked for this transaction's write — which also announces the
 * session on the store's change channel (`changeChannel`), delivered when, and only if, it commits.
 */
export async function findSessionRow(sql: Sql, id: string, lock = false): Promise<SessionRow | undefined> {
  if (!lock) return (await sql.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id])).rows[0];
  const row = (
    await sql.query<SessionRow & { notified?: unknown }>(`SELECT sessions.*, ${NOTIFY_SQL} AS notified FROM sessions WHERE id = $1 FOR UPDATE`, [id])
  ).rows[0];
  if (row) delete row.notified;
  return row;
}

/** The session's row; with `lock`, locked for this transaction (appends, head moves and seqs of one session serialize on it). */
export async function requireSession(sql: Sql, id: string, lock = false): Promise<SessionRow> {
  const row = await findSessionRow(sql, id, lock);
  if (!row) throw new NotFoundError({ entity: 'session', id });
  return row;
}

/** Locks several sessions in one order (by id), so transactions locking overlapping sets never deadlock. */
export async function lockSessions(sql: Sql, ids: Iterable<string>): Promise<Map<string, SessionRow>> {
  const wanted = [...new Set(ids)].sort();
  const rows = new Map<string, SessionRow>();
  for (const id of wanted) rows.set(id, await requireSession(sql, id, true));
  return rows;
}

export async function requireMessageRow(sql: Sql, id: string): Promise<MessageRow> {
  const row = (await sql.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1`, [id])).rows[0];
  if (!row) throw new NotFoundError({ entity: 'message', id });
  return row;
}

/** Insert one entry with the session's next seq. The session row must be locked by this transaction. */
export async function insertEntry(sql: Sql, sessionId: string, entry: NewEntry, now: number): Promise<Entry> {
  const { rows } = await sql.query<{ next: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM entries WHERE session_id = $1', [sessionId]);
  const row: EntryRow = {
    id: newId('entry', now),
    session_id: sessionId,
    seq: rows[0]!.next,
    type: entry.type,
    created_at: now,
    data: JSON.stringify(entry.data),
  };
  await sql.query('INSERT INTO entries (id, session_id, seq, type, created_at, data) VALUES ($1, $2, $3, $4, $5, $6)', [
    row.id,
    row.session_id,
    row.seq,
    row.type,
    row.created_at,
    row.data,
  ]);
  return toEntry(row);
}

export async function listEntries(context: PgContext, sessionId: string, options: { type?: string; afterSeq?: number; last?: number }): Promise<Entry[]> {
  return context.read('list entries', async (sql) => {
    await requireSession(sql, sessionId);
    const where = ['session_id = $1', 'seq > $2'];
    const values: unknown[] = [sessionId, options.afterSeq ?? 0];
    if (options.type !== undefined) {
      values.push(options.type);
      where.push(`type = $${values.length}`);
    }
    let text = `SELECT * FROM entries WHERE ${where.join(' AND ')} ORDER BY seq`;
    if (options.last !== undefined) {
      values.push(options.last);
      text = `SELECT * FROM (SELECT * FROM entries WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length}) newest ORDER BY seq`;
    }
    return (await sql.query<EntryRow>(text, values)).rows.map(toEntry);
  });
}

export async function insertSession(sql: Sql, row: SessionRow): Promise<void> {
  await sql.query(
    `INSERT INTO sessions (id, kind, tree_id, parent_session_id, root_session_id, forked_from_message_id, head_message_id,
      branch_generation, title, workdir, git_branch, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      row.id,
      row.kind,
      row.tree_id,
      row.parent_session_id,
      row.root_session_id,
      row.forked_from_message_id,
      row.head_message_id,
      row.branch_generation,
      row.title,
      row.workdir,
      row.git_branch,
      row.metadata,
      row.created_at,
      row.updated_at,
    ],
  );
}

export async function createSession(context: PgContext, input: CreateSessionInput): Promise<Session> {
  const now = Date.now();
  const id = input.id ?? newId('session', now);
  const row: SessionRow = {
    id,
    kind: 'main',
    tree_id: newId('tree', now),
    parent_session_id: null,
    root_session_id: id,
    forked_from_message_id: null,
    head_message_id: null,
    branch_generation: 0,
    title: input.title ?? DEFAULT_TITLE,
    workdir: input.workdir ?? null,
    git_branch: input.gitBranch ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  return context.write('create a session', async (sql) => {
    // Two machines creating one id at once: the second waits for the first's row, then sees it.
    const inserted = await sql.query(
      `INSERT INTO sessions (id, kind, tree_id, parent_session_id, root_session_id, forked_from_message_id, head_message_id,
        branch_generation, title, workdir, git_branch, metadata, created_at, updated_at)
       VALUES ($1, 'main', $2, NULL, $1, NULL, NULL, 0, $3, $4, $5, $6, $7, $7) ON CONFLICT (id) DO NOTHING`,
      [id, row.tree_id, row.title, row.workdir, row.git_branch, row.metadata, now],
    );
    if (inserted.rowCount === 0) {
      throw new ConflictError({ code: 'SESSION_EXISTS', message: `A session with id "${id}" already exists.`, details: { id } });
    }
    await insertEntry(sql, id, { type: 'title', data: { title: row.title } }, now);
    await sql.query(`SELECT ${NOTIFY_SQL}`, [id]);
    return toSession(row);
  });
}

export async function listSessions(context: PgContext, options: ListSessionsOptions): Promise<Session[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (column: string, value: unknown) => {
    values.push(value);
    where.push(`${column} = $${values.length}`);
  };
  if (options.parentSessionId !== undefined) add('parent_session_id', options.parentSessionId);
  if (options.rootSessionId !== undefined) add('root_session_id', options.rootSessionId);
  if (options.treeId !== undefined) add('tree_id', options.treeId);
  let text = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id COLLATE "C"`;
  if (options.limit !== undefined && options.limit >= 0) {
    values.push(options.limit);
    text += ` LIMIT $${values.length}`;
  }
  return (await context.query<SessionRow>('list sessions', text, values)).map(toSession);
}

export async function setTitle(context: PgContext, sessionId: string, title: string): Promise<Session> {
  const now = Date.now();
  return context.write('set the title', async (sql) => {
    const row = await requireSession(sql, sessionId, true);
    await sql.query('UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3', [title, now, sessionId]);
    await insertEntry(sql, sessionId, { type: 'title', data: { title, previous: row.title } }, now);
    return toSession({ ...row, title, updated_at: now });
  });
}

export async function patchSessionMetadata(context: PgContext, sessionId: string, patch: JsonObject): Promise<Session> {
  const now = Date.now();
  return context.write('update session metadata', async (sql) => {
    const row = await requireSession(sql, sessionId, true);
    const metadata = JSON.stringify({ ...(JSON.parse(row.metadata) as JsonObject), ...patch });
    await sql.query('UPDATE sessions SET metadata = $1, updated_at = $2 WHERE id = $3', [metadata, now, sessionId]);
    await insertEntry(sql, sessionId, { type: 'metadata', data: { patch } }, now);
    return toSession({ ...row, metadata, updated_at: now });
  });
}

/**
 * Moves a session's head inside the caller's transaction: the session row is locked, so the
 * compare-and-set on `expectedFrom` holds against every other machine; a lost race is `HEAD_MOVED`.
 */
export async function moveHeadIn(sql: Sql, input: MoveHeadInput, now: number): Promise<MoveHeadResult> {
  const row = await requireSession(sql, input.sessionId, true);
  if (input.expectedFrom !== undefined && input.expectedFrom !== row.head_message_id) throw headMoved(row, input.expectedFrom);
  if (input.to !== null) {
    const target = await requireMessageRow(sql, input.to);
    if (target.tree_id !== row.tree_id) {
      throw new InvalidArgumentError({
        parameter: 'to',
        value: input.to,
        code: 'MESSAGE_NOT_IN_TREE',
        reason: `message ${input.to} belongs to another conversation tree than session ${row.id}; a head can only move within its own tree.`,
      });
    }
  }
  const generation = row.branch_generation + (input.bumpGeneration ? 1 : 0);
  await sql.query('UPDATE sessions SET head_message_id = $1, branch_generation = $2, updated_at = $3 WHERE id = $4', [input.to, generation, now, row.id]);
  const entry = await insertEntry(
    sql,
    row.id,
    { type: 'head-move', data: { ...(input.data ?? {}), from: row.head_message_id, to: input.to, reason: input.reason, branchGeneration: generation } },
    now,
  );
  return { session: toSession({ ...row, head_message_id: input.to, branch_generation: generation, updated_at: now }), entry };
}

export function headMoved(row: SessionRow, expected: string | null): ConflictError {
  return new ConflictError({
    code: 'HEAD_MOVED',
    message: `Session ${row.id} moved on: its head is ${row.head_message_id ?? 'empty'}, not ${expected ?? 'empty'}. Reload the session and try again.`,
    details: { sessionId: row.id, expected, actual: row.head_message_id },
  });
}

export { toMessage };
