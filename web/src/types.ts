// The shapes the page reads from `waypoint serve` (docs/protocol.md): a subset of the engine's
// types, kept here so the browser bundle does not compile the engine.

export type SessionKind = 'main' | 'fork' | 'side_chat';

export interface SessionRow {
  id: string;
  kind: SessionKind;
  title: string;
  workdir: string | null;
  parentSessionId: string | null;
  rootSessionId: string;
  forkedFromMessageId: string | null;
  headMessageId: string | null;
  branchGeneration: number;
  createdAt: number;
  updatedAt: number;
  subagent: boolean;
  running: boolean;
}

/** A part of a page: text and tool calls whole, tool outputs by size (loaded with `message.part`). */
export interface PartView {
  type: string;
  text?: string;
  /** On a tool output: null when no call before it in the page named it. */
  toolCallId?: string | null;
  toolName?: string | null;
  input?: unknown;
  index?: number;
  size?: number;
  loaded?: false;
}

export interface MessageView {
  id: string;
  parentId: string | null;
  sessionId: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  kind: 'input' | 'reply' | 'tool_result' | 'summary' | 'meta' | 'task_notification' | 'fork_note' | 'system';
  status: 'complete' | 'streaming' | 'error' | 'interrupted';
  visibility: 'all' | 'model' | 'ui';
  turnId: string | null;
  depth: number;
  createdAt: number;
  compacted: boolean;
  summaryOf: number | null;
  subagentSessionId: string | null;
  parts: PartView[];
  actions: { rewind: boolean; edit: boolean; retry: boolean; fork: boolean };
}

export interface ConversationPage {
  sessionId: string;
  headMessageId: string | null;
  total: number;
  messages: MessageView[];
  nextBefore: number | null;
  modelStartsAt: string | null;
  running: boolean;
}

export interface RewindTarget {
  messageId: string;
  turnId: string | null;
  depth: number;
  text: string;
  createdAt: number;
  compacted: boolean;
  fileChanges?: number;
}

export interface TurnFileChange {
  path: string;
  displayPath: string;
  op: string;
  added: number | null;
  removed: number | null;
  binary: boolean;
}

export interface TurnSummary {
  turnId: string;
  files: TurnFileChange[];
  totals: { files: number; added: number; removed: number };
}

export type FileRewindStatus = 'safe' | 'external_modified' | 'checkpoint_missing' | 'checkpoint_unreadable' | 'file_read_failed' | 'unsupported_checkpoint';

export interface PreviewFile {
  path: string;
  status: FileRewindStatus;
  reason: string | null;
  action: 'write' | 'delete' | 'move' | 'none';
  mergeAvailable: boolean;
  mergePatch: string | null;
  resolution: 'merge' | 'force' | 'skip' | null;
}

export interface ShellChange {
  checkpointId: string;
  op: string;
  path: string;
  toPath: string | null;
  included: boolean;
}

export interface FileRewindPreview {
  sessionId: string;
  target: { messageId: string } | { turnId: string };
  checkpointIds: string[];
  files: PreviewFile[];
  shellChanges: ShellChange[];
  canApply: boolean;
  blockers: string[];
}

export interface UndoPreview {
  previewId: string;
  preview: FileRewindPreview;
  diffs: Record<string, { undo: string | null; merge: string | null }>;
}

export interface FamilyNode {
  session: SessionRow;
  branchPoint: { messageId: string; depth: number } | null;
  subagent: boolean;
  lastTurnStatus: string | null;
  turns: number;
  changes: number;
  children: FamilyNode[];
}

export interface TreeNode {
  messageId: string;
  parentMessageId: string | null;
  text: string;
  createdAt: number;
  depth: number;
  onPath: boolean;
  heads: string[];
}

export interface SessionTree {
  headMessageId: string | null;
  nodes: TreeNode[];
}

export interface StartedTurn {
  sessionId: string;
  turnId: string;
  inputMessageId: string;
}

/** A server event (`method: 'event'`). */
/** An external tool call waiting for a person's decision (`effect.pending`, the `effect.approval` event). */
export interface PendingApproval {
  approvalId: string;
  sessionId: string;
  toolName: string;
  input: unknown;
  reason: 'policy' | 'already-succeeded' | 'in-doubt';
  previousEffectId: string | null;
  createdAt: number;
}

export interface ServerEvent {
  type: string;
  sessionId?: string;
  turnId?: string;
  messageId?: string;
  partIndex?: number;
  partType?: string;
  delta?: string;
  input?: MessageView;
  message?: MessageView;
  toolCallId?: string;
  toolName?: string;
  summary?: TurnSummary;
  status?: string;
  finalMessageId?: string | null;
  origin?: 'server' | 'external';
  session?: SessionRow;
  error?: { code: string; message: string } | null;
  approval?: PendingApproval;
  approvalId?: string;
  [key: string]: unknown;
}
