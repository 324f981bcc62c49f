import { ConflictError, NotFoundError, newId, type Message, type MessageStatus, type MessageWithParts, type PartContent } from '../../model/index.js';
import { toMessage, toMessageWithParts, toSession, type MessageRow, type SessionRow } from '../sqlite/rows.js';
import { defaultKind, encodeParts } from '../new-rows.js';
import type { AppendMessageInput, AppendResult, HistoryOptions, NewMessage, PartsLoad } from '../store.js';
import { shareRootsLock, type PgContext, type Sql } from './pg-context.js';
import { MESSAGE_COLUMNS, headMoved, requireMessageRow, requireSession } from './pg-sessions.js';

/** Insert a message as a child of `parentId` in the session's tree, inside the caller's transaction. */
export async function insertMessage(
  sql: Sql,
  schema: string,
  session: SessionRow,
  parentId: string | null,
  input: NewMessage,
  now: number,
): Promise<MessageWithParts> {
  const encoded = encodeParts(input.parts);
  const depth = parentId === null ? 0 : (await requireMessageRow(sql, parentId)).depth + 1;
  const row: MessageRow = {
    seq: 0,
    id: input.id ?? newId('message', now),
    tree_id: session.tree_id,
    parent_seq: null,
    parent_id: parentId,
    session_id: session.id,
    role: input.role,
    kind: input.kind ?? defaultKind(input.role),
    status: input.status ?? 'complete',
    turn_id: input.turnId ?? null,
    depth,
    created_at: now,
    metadata: JSON.stringify(input.metadata ?? {}),
    part_meta: encoded.meta,
    parts: encoded.parts,
  };
  await sql.query(
    `INSERT INTO messages (id, tree_id, parent_id, session_id, role, kind, status, turn_id, depth, created_at, metadata, part_meta, parts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      row.id,
      row.tree_id,
      row.parent_id,
      row.session_id,
      row.role,
      row.kind,
      row.status,
      row.turn_id,
      row.depth,
      row.created_at,
      row.metadata,
      row.part_meta,
      row.parts,
    ],
  );
  await insertBlobRefs(sql, schema, row.id, encoded.blobHashes);
  return toMessageWithParts(row);
}

async function insertBlobRefs(sql: Sql, schema: string, messageId: string, hashes: string[]): Promise<void> {
  if (hashes.length === 0) return;
  await shareRootsLock(sql, schema);
  await sql.query('INSERT INTO message_blobs (message_id, hash) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [messageId, hashes]);
}

export async function appendMessage(context: PgContext, input: AppendMessageInput): Promise<AppendResult> {
  const now = Date.now();
  encodeParts(input.parts);
  return context.write('append a message', async (sql) => {
    const session = await requireSession(sql, input.sessionId, true);
    if (input.expectedHeadId !== undefined && input.expectedHeadId !== session.head_message_id) throw headMoved(session, input.expectedHeadId);
    const message = await insertMessage(sql, context.schema, session, session.head_message_id, input, now);
    await sql.query('UPDATE sessions SET head_message_id = $1, updated_at = $2 WHERE id = $3', [message.id, now, session.id]);
    return { message, session: toSession({ ...session, head_message_id: message.id, updated_at: now }) };
  });
}

export async function getMessages(context: PgContext, ids: readonly string[], load: PartsLoad): Promise<MessageWithParts[]> {
  if (ids.length === 0) return [];
  const columns = load === 'full' ? `${MESSAGE_COLUMNS}, parts` : MESSAGE_COLUMNS;
  const rows = await context.query<MessageRow>('read messages', `SELECT ${columns} FROM messages WHERE id = ANY($1::text[])`, [[...ids]]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new NotFoundError({ entity: 'message', id });
    return toMessageWithParts(row);
  });
}

export async function findMessage(context: PgContext, id: string): Promise<Message | null> {
  const [row] = await context.query<MessageRow>('read a message', `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1`, [id]);
  return row ? toMessage(row) : null;
}

/** Replace a streaming message's parts (and, with `status`, finish it), or only finish it. */
export async function changeStreaming(
  context: PgContext,
  messageId: string,
  parts: PartContent[] | undefined,
  status?: Exclude<MessageStatus, 'streaming'>,
): Promise<MessageWithParts> {
  const encoded = parts ? encodeParts(parts) : null;
  await context.write(status ? 'finish a message' : 'update a streaming message', async (sql) => {
    const row = (await sql.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1 FOR UPDATE`, [messageId])).rows[0];
    if (!row) throw new NotFoundError({ entity: 'message', id: messageId });
    if (row.status !== 'streaming') {
      throw new ConflictError({
        code: 'MESSAGE_IMMUTABLE',
        message: encoded
          ? `Message ${messageId} is ${row.status}; only a streaming message can change. Append a new message instead.`
          : `Message ${messageId} is already ${row.status}.`,
        details: { messageId, status: row.status },
      });
    }
    if (encoded) {
      await sql.query('UPDATE messages SET part_meta = $1, parts = $2 WHERE id = $3', [encoded.meta, encoded.parts, messageId]);
      await insertBlobRefs(sql, context.schema, messageId, encoded.blobHashes);
    }
    if (status) await sql.query('UPDATE messages SET status = $1 WHERE id = $2', [status, messageId]);
  });
  return (await getMessages(context, [messageId], 'full'))[0]!;
}

export async function children(context: PgContext, messageId: string): Promise<Message[]> {
  return context.read('list children', async (sql) => {
    await requireMessageRow(sql, messageId);
    const { rows } = await sql.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE parent_id = $1 ORDER BY created_at, id COLLATE "C"`, [
      messageId,
    ]);
    return rows.map(toMessage);
  });
}

export async function listTreeMessages(context: PgContext, treeId: string): Promise<Message[]> {
  const rows = await context.query<MessageRow>(
    'list a conversation tree',
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE tree_id = $1 ORDER BY created_at, id COLLATE "C"`,
    [treeId],
  );
  return rows.map(toMessage);
}

/**
 * The path from the root to `headId`, oldest first, bounded by depth: one recursive query that
 * follows parent links from the head down to the lowest depth asked, so a page of the newest
 * messages costs what the page holds, whatever the history length.
 */
export async function readPath(sql: Sql, headId: string | null, options: HistoryOptions): Promise<MessageWithParts[]> {
  if (headId === null) return [];
  const head = await requireMessageRow(sql, headId);
  let fromDepth = Math.max(0, options.fromDepth ?? 0);
  const toDepth = Math.min(options.toDepth ?? Number.MAX_SAFE_INTEGER, head.depth + 1);
  if (options.last !== undefined) fromDepth = Math.max(fromDepth, toDepth - options.last);
  if (fromDepth >= toDepth) return [];
  const full = (options.parts ?? 'full') === 'full';
  const values: unknown[] = [headId, fromDepth, toDepth];
  let roleFilter = '';
  if (options.roles) {
    values.push([...options.roles]);
    roleFilter = ' AND m.role = ANY($4::text[])';
  }
  const columns = MESSAGE_COLUMNS.split(', ')
    .map((column) => `m.${column}`)
    .join(', ');
  const { rows } = await sql.query<MessageRow>(
    `WITH RECURSIVE path(id, parent_id, depth) AS (
       SELECT id, parent_id, depth FROM messages WHERE id = $1
       UNION ALL
       SELECT m.id, m.parent_id, m.depth FROM messages m JOIN path p ON m.id = p.parent_id WHERE p.depth > $2
     )
     SELECT ${columns}${full ? ', m.parts' : ''} FROM path JOIN messages m ON m.id = path.id
     WHERE path.depth >= $2 AND path.depth < $3${roleFilter} ORDER BY m.depth`,
    values,
  );
  return rows.map(toMessageWithParts);
}
