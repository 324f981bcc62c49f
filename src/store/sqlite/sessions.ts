import { ConflictError, InvalidArgumentError, NotFoundError, newId, type Entry, type JsonObject, type Session } from '../../model/index.js';
import type { CreateSessionInput, ListSessionsOptions, MoveHeadInput, MoveHeadResult } from '../store.js';
import { insertEntry, jsonOf } from './entries.js';
import { MESSAGE_COLUMNS, toSession, type MessageRow, type SessionRow } from './rows.js';
import type { SqliteContext } from './sqlite-context.js';

export const DEFAULT_TITLE = 'New session';

export function findSessionRow(context: SqliteContext, id: string): SessionRow | undefined {
  return context.statement('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
}

export function requireSession(context: SqliteContext, id: string): SessionRow {
  const row = findSessionRow(context, id);
  if (!row) throw new NotFoundError({ entity: 'session', id });
  return row;
}

export function requireMessageRow(context: SqliteContext, id: string): MessageRow {
  const row = context.statement(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ?`).get(id) as MessageRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'message', id });
  return row;
}

export function insertSession(context: SqliteContext, row: SessionRow): void {
  context
    .statement(
      `INSERT INTO sessions (id, kind, tree_id, parent_session_id, root_session_id, forked_from_message_id, head_message_id,
        branch_generation, title, workdir, git_branch, metadata, created_at, updated_at)
       VALUES (@id, @kind, @tree_id, @parent_session_id, @root_session_id, @forked_from_message_id, @head_message_id,
        @branch_generation, @title, @workdir, @git_branch, @metadata, @created_at, @updated_at)`,
    )
    .run(row);
}

export function createSession(context: SqliteContext, input: CreateSessionInput): Session {
  const now = Date.now();
  const id = input.id ?? newId('session', now);
  return context.write('create a session', () => {
    if (findSessionRow(context, id)) {
      throw new ConflictError({ code: 'SESSION_EXISTS', message: `A session with id "${id}" already exists.`, details: { id } });
    }
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
      metadata: jsonOf(input.metadata),
      created_at: now,
      updated_at: now,
    };
    insertSession(context, row);
    insertEntry(context, id, { type: 'title', data: { title: row.title } }, now);
    return toSession(row);
  });
}

export function listSessions(context: SqliteContext, options: ListSessionsOptions): Session[] {
  const where: string[] = [];
  if (options.parentSessionId !== undefined) where.push('parent_session_id = @parentSessionId');
  if (options.rootSessionId !== undefined) where.push('root_session_id = @rootSessionId');
  if (options.treeId !== undefined) where.push('tree_id = @treeId');
  const sql = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id LIMIT @limit`;
  const rows = context.statement(sql).all({ ...options, limit: options.limit ?? -1 }) as SessionRow[];
  return rows.map(toSession);
}

export function setTitle(context: SqliteContext, sessionId: string, title: string): Session {
  const now = Date.now();
  return context.write('set the title', () => {
    const row = requireSession(context, sessionId);
    context.statement('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?').run(title, now, sessionId);
    insertEntry(context, sessionId, { type: 'title', data: { title, previous: row.title } }, now);
    return toSession({ ...row, title, updated_at: now });
  });
}

export function patchSessionMetadata(context: SqliteContext, sessionId: string, patch: JsonObject): Session {
  const now = Date.now();
  return context.write('update session metadata', () => {
    const row = requireSession(context, sessionId);
    const metadata = JSON.stringify({ ...(JSON.parse(row.metadata) as JsonObject), ...patch });
    context.statement('UPDATE sessions SET metadata = ?, updated_at = ? WHERE id = ?').run(metadata, now, sessionId);
    insertEntry(context, sessionId, { type: 'metadata', data: { patch } }, now);
    return toSession({ ...row, metadata, updated_at: now });
  });
}

/**
 * Point a session's head at another message of its tree (or at nothing), recording the move as a
 * `head-move` entry. Cost is a few indexed lookups whatever the history length.
 */
export function moveHead(context: SqliteContext, input: MoveHeadInput): MoveHeadResult {
  const now = Date.now();
  return context.write('move the head', () => {
    const row = requireSession(context, input.sessionId);
    if (input.expectedFrom !== undefined && input.expectedFrom !== row.head_message_id) {
      throw headMoved(row, input.expectedFrom);
    }
    if (input.to !== null) {
      const target = requireMessageRow(context, input.to);
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
    context.statement('UPDATE sessions SET head_message_id = ?, branch_generation = ?, updated_at = ? WHERE id = ?').run(input.to, generation, now, row.id);
    const entry: Entry = insertEntry(
      context,
      row.id,
      { type: 'head-move', data: { ...(input.data ?? {}), from: row.head_message_id, to: input.to, reason: input.reason, branchGeneration: generation } },
      now,
    );
    return { session: toSession({ ...row, head_message_id: input.to, branch_generation: generation, updated_at: now }), entry };
  });
}

export function headMoved(row: SessionRow, expected: string | null): ConflictError {
  return new ConflictError({
    code: 'HEAD_MOVED',
    message: `Session ${row.id} moved on: its head is ${row.head_message_id ?? 'empty'}, not ${expected ?? 'empty'}. Reload the session and try again.`,
    details: { sessionId: row.id, expected, actual: row.head_message_id },
  });
}
