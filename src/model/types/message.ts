import type { JsonObject, JsonValue } from './json.js';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/**
 * What a message is, beyond its role. Only `input` user messages are rewind targets; summaries,
 * hook/meta injections, task notifications and fork notes are not.
 */
export type MessageKind = 'input' | 'reply' | 'tool_result' | 'summary' | 'meta' | 'task_notification' | 'fork_note' | 'system';

export type MessageStatus = 'complete' | 'streaming' | 'error' | 'interrupted';

/** An immutable node of a conversation tree. */
export interface Message {
  id: string;
  treeId: string;
  parentId: string | null;
  /** The session that appended it (a message is shared with every fork whose path contains it). */
  sessionId: string;
  role: MessageRole;
  kind: MessageKind;
  status: MessageStatus;
  turnId: string | null;
  /** Number of ancestors; a root has depth 0. */
  depth: number;
  metadata: JsonObject;
  createdAt: number;
}

/**
 * Content of a message, shaped like the Vercel AI SDK's message parts so stored history feeds a
 * model call directly: `{ type: 'text', text }`, `{ type: 'tool-call', toolCallId, toolName, input }`,
 * `{ type: 'tool-result', toolCallId, toolName, output }`, `{ type: 'reasoning', text }` …
 */
export interface PartContent {
  type: string;
  [key: string]: JsonValue | undefined;
}

/** A part as stored: its position, type and serialized size are known without loading it. */
export interface Part {
  index: number;
  type: string;
  /** Length in bytes of the serialized content, known without loading it. */
  size: number;
  /** Absent when history was read without payloads. */
  content?: PartContent;
}

/** A message with its parts, as `history()` returns it. */
export interface MessageWithParts extends Message {
  parts: Part[];
}
