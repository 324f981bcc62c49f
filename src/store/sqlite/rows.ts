import type {
  Checkpoint,
  CommandFact,
  Effect,
  Entry,
  Journal,
  JsonObject,
  Message,
  MessageWithParts,
  Part,
  PartContent,
  Session,
  Turn,
} from '../../model/index.js';
import { unpackJson } from './packed-json.js';

/** Row shapes as SQLite returns them, and their mapping to model types. */

export interface SessionRow {
  id: string;
  kind: Session['kind'];
  tree_id: string;
  parent_session_id: string | null;
  root_session_id: string;
  forked_from_message_id: string | null;
  head_message_id: string | null;
  branch_generation: number;
  title: string;
  workdir: string | null;
  git_branch: string | null;
  metadata: string;
  created_at: number;
  updated_at: number;
}

export function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    kind: row.kind,
    treeId: row.tree_id,
    parentSessionId: row.parent_session_id,
    rootSessionId: row.root_session_id,
    forkedFromMessageId: row.forked_from_message_id,
    headMessageId: row.head_message_id,
    branchGeneration: row.branch_generation,
    title: row.title,
    workdir: row.workdir,
    gitBranch: row.git_branch,
    metadata: JSON.parse(row.metadata) as JsonObject,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface MessageRow {
  seq: number;
  id: string;
  tree_id: string;
  parent_seq: number | null;
  parent_id: string | null;
  session_id: string;
  role: Message['role'];
  kind: Message['kind'];
  status: Message['status'];
  turn_id: string | null;
  depth: number;
  created_at: number;
  metadata: string;
  part_meta: string;
  parts?: string;
}

/** Every column but the part payloads. */
export const MESSAGE_COLUMNS = 'seq, id, tree_id, parent_seq, parent_id, session_id, role, kind, status, turn_id, depth, created_at, metadata, part_meta';

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    treeId: row.tree_id,
    parentId: row.parent_id,
    sessionId: row.session_id,
    role: row.role,
    kind: row.kind,
    status: row.status,
    turnId: row.turn_id,
    depth: row.depth,
    metadata: parseObject(row.metadata),
    createdAt: row.created_at,
  };
}

/** `part_meta` is `[[type, size], …]`; `parts` the JSON array of contents, when loaded. */
export function toMessageWithParts(row: MessageRow): MessageWithParts {
  const meta = JSON.parse(row.part_meta) as Array<[string, number]>;
  const contents = row.parts === undefined ? undefined : (JSON.parse(row.parts) as PartContent[]);
  const parts = new Array<Part>(meta.length);
  for (let index = 0; index < meta.length; index++) {
    const [type, size] = meta[index]!;
    parts[index] = contents === undefined ? { index, type, size } : { index, type, size, content: contents[index]! };
  }
  const message = toMessage(row) as MessageWithParts;
  message.parts = parts;
  return message;
}

function parseObject(json: string): JsonObject {
  return json === '{}' ? {} : (JSON.parse(json) as JsonObject);
}

export interface EntryRow {
  id: string;
  session_id: string;
  seq: number;
  type: string;
  created_at: number;
  data: string;
}

export function toEntry(row: EntryRow): Entry {
  return { id: row.id, sessionId: row.session_id, seq: row.seq, type: row.type, data: JSON.parse(row.data) as JsonObject, createdAt: row.created_at };
}

export interface TurnRow {
  id: string;
  session_id: string;
  user_message_id: string;
  status: Turn['status'];
  branch_generation: number;
  boundary: string | null;
  metadata: string;
  started_at: number;
  ended_at: number | null;
}

/** A `turns` row as read from SQLite: its metadata may be deflated (see `packJson`). */
export type StoredTurnRow = Omit<TurnRow, 'metadata'> & { metadata: string | Buffer };

export function toTurn(row: TurnRow | StoredTurnRow): Turn {
  return {
    id: row.id,
    sessionId: row.session_id,
    userMessageId: row.user_message_id,
    status: row.status,
    branchGeneration: row.branch_generation,
    boundary: row.boundary === null ? null : (JSON.parse(row.boundary) as string[]),
    metadata: JSON.parse(unpackJson(row.metadata)) as JsonObject,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

export interface CheckpointRow {
  id: string;
  session_id: string;
  seq: number;
  turn_id: string | null;
  anchor_message_id: string | null;
  op: Checkpoint['op'];
  path: string;
  to_path: string | null;
  before_hash: string | null;
  after_hash: string | null;
  before_mode: number | null;
  after_mode: number | null;
  source: Checkpoint['source'];
  tool_name: string | null;
  tool_call_id: string | null;
  status: Checkpoint['status'];
  skip_reason: string | null;
  created_at: number;
  patch: string | null;
}

export function toCheckpoint(row: CheckpointRow): Checkpoint {
  return {
    id: row.id,
    sessionId: row.session_id,
    turnId: row.turn_id,
    anchorMessageId: row.anchor_message_id,
    seq: row.seq,
    op: row.op,
    path: row.path,
    toPath: row.to_path,
    beforeHash: row.before_hash,
    afterHash: row.after_hash,
    beforeMode: row.before_mode,
    afterMode: row.after_mode,
    patch: row.patch,
    source: row.source,
    toolName: row.tool_name,
    toolCallId: row.tool_call_id,
    status: row.status,
    skipReason: row.skip_reason,
    createdAt: row.created_at,
  };
}

export interface JournalRow {
  id: string;
  session_id: string | null;
  kind: string;
  state: Journal['state'];
  root: string;
  items: string;
  metadata: string;
  created_at: number;
  updated_at: number;
}

export function toJournal(row: JournalRow): Journal {
  return {
    id: row.id,
    sessionId: row.session_id,
    kind: row.kind,
    state: row.state,
    root: row.root,
    items: JSON.parse(row.items) as Journal['items'],
    metadata: JSON.parse(row.metadata) as JsonObject,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface EffectRow {
  id: string;
  session_id: string;
  turn_id: string | null;
  tool_name: string;
  tool_call_id: string | null;
  idempotency_key: string;
  status: Effect['status'];
  request: string;
  result: string;
  created_at: number;
}

export function toEffect(row: EffectRow): Effect {
  return {
    id: row.id,
    sessionId: row.session_id,
    turnId: row.turn_id,
    toolName: row.tool_name,
    toolCallId: row.tool_call_id,
    idempotencyKey: row.idempotency_key,
    status: row.status,
    request: JSON.parse(row.request) as Effect['request'],
    result: JSON.parse(row.result) as Effect['result'],
    createdAt: row.created_at,
  };
}

export interface CommandFactRow {
  command_id: string;
  session_id: string | null;
  kind: string;
  result: string;
  created_at: number;
}

export function toCommandFact(row: CommandFactRow): CommandFact {
  return {
    commandId: row.command_id,
    sessionId: row.session_id,
    kind: row.kind,
    result: JSON.parse(row.result) as CommandFact['result'],
    createdAt: row.created_at,
  };
}
