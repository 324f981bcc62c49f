import {
  ConflictError,
  InvalidArgumentError,
  newId,
  type Message,
  type MessageStatus,
  type MessageWithParts,
  type Part,
  type PartContent,
  type Session,
} from '../../model/index.js';
import type { AppendMessageInput, AppendResult, HistoryOptions, NewMessage, PartsLoad } from '../store.js';
import { jsonOf } from './entries.js';
import { MESSAGE_COLUMNS, toMessage, toPart, toSession, type MessageRow, type PartRow, type SessionRow } from './rows.js';
import { headMoved, requireMessageRow, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

/** Insert a message and its parts as a child of `parentId` in the session's tree. Inside a write. */
export function insertMessage(context: SqliteContext, session: SessionRow, parentId: string | null, input: NewMessage, now: number): MessageWithParts {
  let depth = 0;
  if (parentId !== null) {
    const parent = requireMessageRow(context, parentId);
    depth = parent.depth + 1;
  }
  const row: MessageRow = {
    id: input.id ?? newId('message', now),
    tree_id: session.tree_id,
    parent_id: parentId,
    session_id: session.id,
    role: input.role,
    kind: input.kind ?? defaultKind(input.role),
    status: input.status ?? 'complete',
    turn_id: input.turnId ?? null,
    depth,
    created_at: now,
    metadata: jsonOf(input.metadata),
  };
  context
    .statement(
      `INSERT INTO messages (${MESSAGE_COLUMNS})
       VALUES (@id, @tree_id, @parent_id, @session_id, @role, @kind, @status, @turn_id, @depth, @created_at, @metadata)`,
    )
    .run(row);
  const parts = insertParts(context, row.id, input.parts, now);
  return { ...toMessage(row), parts };
}

function insertParts(context: SqliteContext, messageId: string, contents: PartContent[], now: number): Part[] {
  const insert = context.statement(
    'INSERT INTO parts (id, message_id, idx, type, size, blob_hash, content) VALUES (@id, @message_id, @idx, @type, @size, @blob_hash, @content)',
  );
  return contents.map((content, index) => {
    if (typeof content?.type !== 'string') {
      throw new InvalidArgumentError({ parameter: `parts[${index}].type`, value: content?.type, reason: 'every part needs a string type.' });
    }
    const json = JSON.stringify(content);
    const row = {
      id: newId('part', now),
      message_id: messageId,
      idx: index,
      type: content.type,
      size: Buffer.byteLength(json),
      blob_hash: typeof content.blobHash === 'string' ? content.blobHash : null,
      content: json,
    };
    insert.run(row);
    return toPart(row);
  });
}

function defaultKind(role: Message['role']): Message['kind'] {
  switch (role) {
    case 'user':
      return 'input';
    case 'assistant':
      return 'reply';
    case 'tool':
      return 'tool_result';
    default:
      return 'system';
  }
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

/**
 * The path from the root to `headId`, oldest first, with parts. One recursive walk up the parent
 * links, bounded below by `fromDepth` so reading the newest N messages costs O(N).
 */
export function readPath(context: SqliteContext, headId: string | null, options: HistoryOptions): MessageWithParts[] {
  if (headId === null) return [];
  return context.read('read history', () => {
    const head = requireMessageRow(context, headId);
    let fromDepth = options.fromDepth ?? 0;
    const toDepth = Math.min(options.toDepth ?? Number.MAX_SAFE_INTEGER, head.depth + 1);
    if (options.last !== undefined) fromDepth = Math.max(fromDepth, toDepth - options.last);
    if (fromDepth >= toDepth) return [];
    const load: PartsLoad = options.parts ?? 'full';
    const partColumns = load === 'full' ? 'p.id AS part_id, p.idx, p.type, p.size, p.content' : 'p.id AS part_id, p.idx, p.type, p.size';
    const rows = context
      .statement(
        `WITH RECURSIVE path(id) AS (
           SELECT id FROM messages WHERE id = @headId
           UNION ALL
           SELECT m.parent_id FROM messages m JOIN path ON m.id = path.id
           WHERE m.parent_id IS NOT NULL AND m.depth > @fromDepth
         )
         SELECT ${MESSAGE_COLUMNS.split(', ').map((column) => `m.${column}`).join(', ')}, ${partColumns}
         FROM path JOIN messages m ON m.id = path.id
         LEFT JOIN parts p ON p.message_id = m.id
         WHERE m.depth >= @fromDepth AND m.depth < @toDepth
         ORDER BY m.depth, p.idx`,
      )
      .all({ headId, fromDepth, toDepth }) as Array<MessageRow & { part_id: string | null; idx: number; type: string; size: number; content?: string }>;
    return groupParts(rows);
  });
}

function groupParts(rows: Array<MessageRow & { part_id: string | null; idx: number; type: string; size: number; content?: string }>): MessageWithParts[] {
  const out: MessageWithParts[] = [];
  let current: MessageWithParts | undefined;
  for (const row of rows) {
    if (!current || current.id !== row.id) {
      current = { ...toMessage(row), parts: [] };
      out.push(current);
    }
    if (row.part_id !== null) {
      const part: PartRow = { id: row.part_id, message_id: row.id, idx: row.idx, type: row.type, size: row.size };
      if (row.content !== undefined) part.content = row.content;
      current.parts.push(toPart(part));
    }
  }
  return out;
}

export function getMessage(context: SqliteContext, id: string, load: PartsLoad): MessageWithParts {
  return context.read('read a message', () => {
    const row = requireMessageRow(context, id);
    const columns = load === 'full' ? 'id, message_id, idx, type, size, content' : 'id, message_id, idx, type, size';
    const parts = context.statement(`SELECT ${columns} FROM parts WHERE message_id = ? ORDER BY idx`).all(id) as PartRow[];
    return { ...toMessage(row), parts: parts.map(toPart) };
  });
}

export function replaceStreamingParts(context: SqliteContext, messageId: string, parts: PartContent[], status?: Exclude<MessageStatus, 'streaming'>): MessageWithParts {
  const now = Date.now();
  context.write(status ? 'finish a message' : 'update a streaming message', () => {
    const row = requireMessageRow(context, messageId);
    if (row.status !== 'streaming') {
      throw new ConflictError({
        code: 'MESSAGE_IMMUTABLE',
        message: `Message ${messageId} is ${row.status}; only a streaming message can change. Append a new message instead.`,
        details: { messageId, status: row.status },
      });
    }
    context.statement('DELETE FROM parts WHERE message_id = ?').run(messageId);
    insertParts(context, messageId, parts, now);
    if (status) context.statement('UPDATE messages SET status = ? WHERE id = ?').run(status, messageId);
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

export function children(context: SqliteContext, messageId: string): Message[] {
  requireMessageRow(context, messageId);
  const rows = context.statement(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE parent_id = ? ORDER BY created_at, id`).all(messageId) as MessageRow[];
  return rows.map(toMessage);
}

export function listTreeMessages(context: SqliteContext, treeId: string): Message[] {
  const rows = context.statement(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE tree_id = ? ORDER BY created_at, id`).all(treeId) as MessageRow[];
  return rows.map(toMessage);
}
