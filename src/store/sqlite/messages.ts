import {
  ConflictError,
  NotFoundError,
  newId,
  type Message,
  type MessageStatus,
  type MessageWithParts,
  type PartContent,
  type Session,
} from '../../model/index.js';
import { defaultKind, encodeParts } from '../new-rows.js';
import type { AppendMessageInput, AppendResult, NewMessage, PartsLoad } from '../store.js';
import { jsonOf } from './entries.js';
import { MESSAGE_COLUMNS, toMessage, toMessageWithParts, toSession, type MessageRow, type SessionRow } from './rows.js';
import { headMoved, requireMessageRow, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';
import { idEquals } from './id-keys.js';

/** Insert a message and its parts as a child of `parentId` in the session's tree. Inside a write. */
export function insertMessage(context: SqliteContext, session: SessionRow, parentId: string | null, input: NewMessage, now: number): MessageWithParts {
  let depth = 0;
  let parentSeq: number | null = null;
  if (parentId !== null) {
    const parent = requireMessageRow(context, parentId);
    depth = parent.depth + 1;
    parentSeq = parent.seq;
  }
  const encoded = encodeParts(input.parts);
  const row: Omit<MessageRow, 'seq' | 'parts'> = {
    id: input.id ?? newId('message', now),
    tree_id: session.tree_id,
    parent_seq: parentSeq,
    parent_id: parentId,
    session_id: session.id,
    role: input.role,
    kind: input.kind ?? defaultKind(input.role),
    status: input.status ?? 'complete',
    turn_id: input.turnId ?? null,
    depth,
    created_at: now,
    metadata: jsonOf(input.metadata),
    part_meta: encoded.meta,
  };
  const { lastInsertRowid } = context
    .statement(
      `INSERT INTO messages (id, tree_id, parent_seq, parent_id, session_id, role, kind, status, turn_id, depth, created_at, metadata, part_meta)
       VALUES (@id, @tree_id, @parent_seq, @parent_id, @session_id, @role, @kind, @status, @turn_id, @depth, @created_at, @metadata, @part_meta)`,
    )
    .run(row);
  const seq = Number(lastInsertRowid);
  context.statement('INSERT INTO message_parts (seq, parts) VALUES (?, ?)').run(seq, encoded.parts);
  insertBlobRefs(context, seq, encoded.blobHashes);
  return toMessageWithParts({ ...row, seq, parts: encoded.parts });
}

function insertBlobRefs(context: SqliteContext, messageSeq: number, hashes: string[]): void {
  const insert = context.statement('INSERT OR IGNORE INTO message_blobs (message_seq, hash) VALUES (?, ?)');
  for (const hash of hashes) insert.run(messageSeq, hash);
}

export function appendMessage(context: SqliteContext, input: AppendMessageInput): AppendResult {
  const now = Date.now();
  return context.write('append a message', () => {
    const session = requireSession(context, input.sessionId);
    if (input.expectedHeadId !== undefined && input.expectedHeadId !== session.head_message_id) {
      throw headMoved(session, input.expectedHeadId);
    }
    const message = insertMessage(context, session, session.head_message_id, input, now);
    context.statement('UPDATE sessions SET head_message_id = ?, updated_at = ? WHERE id = ?').run(message.id, now, session.id);
    const updated: Session = toSession({ ...session, head_message_id: message.id, updated_at: now });
    return { message, session: updated };
  });
}

export function getMessage(context: SqliteContext, id: string, load: PartsLoad): MessageWithParts {
  context.assertOpen();
  const row = (
    load === 'full'
      ? context.statement(`SELECT m.*, mp.parts FROM messages m JOIN message_parts mp ON mp.seq = m.seq WHERE m.id = ?`).get(id)
      : context.statement(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ?`).get(id)
  ) as MessageRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'message', id });
  return toMessageWithParts(row);
}

export function getMessages(context: SqliteContext, ids: readonly string[], load: PartsLoad): MessageWithParts[] {
  if (ids.length === 0) return [];
  const sql =
    load === 'full'
      ? `SELECT m.*, mp.parts FROM messages m JOIN message_parts mp ON mp.seq = m.seq WHERE m.id IN (SELECT value FROM json_each(?))`
      : `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`;
  const rows = context.read('read messages', () => context.statement(sql).all(JSON.stringify(ids)) as MessageRow[]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new NotFoundError({ entity: 'message', id });
    return toMessageWithParts(row);
  });
}

export function replaceStreamingParts(
  context: SqliteContext,
  messageId: string,
  parts: PartContent[],
  status?: Exclude<MessageStatus, 'streaming'>,
): MessageWithParts {
  context.write(status ? 'finish a message' : 'update a streaming message', () => {
    const row = requireMessageRow(context, messageId);
    if (row.status !== 'streaming') {
      throw new ConflictError({
        code: 'MESSAGE_IMMUTABLE',
        message: `Message ${messageId} is ${row.status}; only a streaming message can change. Append a new message instead.`,
        details: { messageId, status: row.status },
      });
    }
    const encoded = encodeParts(parts);
    context.statement('UPDATE messages SET part_meta = ? WHERE seq = ?').run(encoded.meta, row.seq);
    context.statement('UPDATE message_parts SET parts = ? WHERE seq = ?').run(encoded.parts, row.seq);
    insertBlobRefs(context, row.seq, encoded.blobHashes);
    if (status) context.statement('UPDATE messages SET status = ? WHERE seq = ?').run(status, row.seq);
  });
  return getMessage(context, messageId, 'full');
}

export function finishMessage(context: SqliteContext, messageId: string, status: Exclude<MessageStatus, 'streaming'>, parts?: PartContent[]): MessageWithParts {
  if (parts) return replaceStreamingParts(context, messageId, parts, status);
  context.write('finish a message', () => {
    const row = requireMessageRow(context, messageId);
    if (row.status !== 'streaming') {
      throw new ConflictError({
        code: 'MESSAGE_IMMUTABLE',
        message: `Message ${messageId} is already ${row.status}.`,
        details: { messageId, status: row.status },
      });
    }
    context.statement('UPDATE messages SET status = ? WHERE id = ?').run(status, messageId);
  });
  return getMessage(context, messageId, 'full');
}

/**
 * A message's children by the parent's `seq`: `parent_seq` is indexed (`messages_parent`), the text
 * `parent_id` beside it is not and would be a scan of every message. Every row with a parent has
 * both (the insert paths take the seq from the parent's row).
 */
export const CHILDREN_SQL = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE parent_seq = ? ORDER BY created_at, id`;

export function children(context: SqliteContext, messageId: string): Message[] {
  const parent = requireMessageRow(context, messageId);
  const rows = context.statement(CHILDREN_SQL).all(parent.seq) as MessageRow[];
  return rows.map(toMessage);
}

export function listTreeMessages(context: SqliteContext, treeId: string): Message[] {
  const rows = context
    .statement(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${idEquals('tree_id', '@treeId')} ORDER BY created_at, id`)
    .all({ treeId }) as MessageRow[];
  return rows.map(toMessage);
}
