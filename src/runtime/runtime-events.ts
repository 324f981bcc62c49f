import type { Checkpoint, EffectKind, JsonValue, MessageWithParts, Turn, TurnStatus } from '../model/index.js';
import type { TurnSummary } from '../checkpoint/index.js';
import type { OperationEvents } from '../operations/index.js';
import type { ToolOutput } from './tools/tool.js';
import type { CompactionResult } from './compaction.js';

/** Where an event happened: a session's turn, or (with `subagent`) a nested run inside a tool call. */
export interface TurnScope {
  sessionId: string;
  turnId: string;
  /**
   * Set for events of a subagent: the parent's tool call that runs it, and the subagent's own
   * session (a child of `sessionId` holding its transcript; see `subagent-loop.ts`).
   */
  subagent?: { toolCallId: string; sessionId: string };
}

/**
 * What the runtime emits for a UI, noun-action names, each only after what it reports committed
 * (events after commit). Streaming deltas are emitted after the streaming message holding them
 * was written; a subagent's messages are written to its own child session, so its events carry
 * that session's message ids (and `subagent`). `rewind` and `fork` come from the operations.
 */
export interface RuntimeEvents extends OperationEvents {
  'turn-start': TurnScope & { turn: Turn; input: MessageWithParts };
  'message-part': TurnScope & { messageId: string | null; partIndex: number; type: 'text' | 'reasoning'; delta: string };
  'message-finish': TurnScope & { message: MessageWithParts };
  'tool-start': TurnScope & { toolCallId: string; toolName: string; input: JsonValue; effect: EffectKind };
  'tool-end': TurnScope & { toolCallId: string; toolName: string; output: ToolOutput; checkpointIds: string[]; messageId: string | null };
  /** `taskId`: recorded when a background task ended (its turn may be over by then). */
  'checkpoint-create': TurnScope & { checkpoint: Checkpoint; taskId?: string };
  'save-point': TurnScope & { point: 'A' | 'B'; step: number; messageId: string };
  'turn-end': TurnScope & {
    turn: Turn;
    status: TurnStatus;
    finalMessageId: string | null;
    summary: TurnSummary;
    error: { code: string; message: string } | null;
  };
  /** `captured`: the workspace was scanned before it started, so its file changes will be checkpointed when it ends. */
  'task-start': { sessionId: string; turnId: string; taskId: string; command: string; branchGeneration: number; toolCallId: string; captured: boolean };
  'task-end': {
    sessionId: string;
    turnId: string;
    taskId: string;
    exitCode: number | null;
    /** True when the result was thrown away: the task was stopped, or the session rewound past its turn. Nothing was checkpointed then. */
    discarded: boolean;
    reason: 'finished' | 'stopped' | 'stale-branch';
    /** The `exec` checkpoints of its file changes, recorded against the turn that started it (each also emitted as `checkpoint-create`). */
    checkpointIds: string[];
    /** Why its file changes could not be checkpointed (its turn is then partially protected), or null. */
    captureError: string | null;
    /** The task_notification message the result was delivered in (null: discarded, or queued for the running turn). */
    messageId: string | null;
  };
  /**
   * Progress of a long workspace scan (a first scan of a big workspace), for a progress bar; short
   * scans report nothing. `read` events come at most every 100 ms while files are read and hashed
   * (synchronously, while the scan blocks the event loop: draw synchronously); `files` (all files
   * the scan saw) is null until `store`, when the contents read are made durable; `done` ends it.
   * `scan`: before or after the command. `taskId` is set for a background task's scans.
   */
  'scan-progress': TurnScope & {
    toolCallId: string;
    taskId: string | null;
    scan: 'before' | 'after';
    phase: 'read' | 'store' | 'done';
    filesRead: number;
    bytesRead: number;
    files: number | null;
    elapsedMs: number;
  };
  /** A subagent started: its transcript is written to `childSessionId` (a child session of `sessionId`). */
  'subagent-start': TurnScope & { toolCallId: string; childSessionId: string; prompt: string; description: string | null };
  'subagent-end': TurnScope & { toolCallId: string; childSessionId: string; status: 'complete' | 'interrupted' | 'error' | 'step-limit'; text: string };
  /**
   * An idle compression pass ended: staged (raw-first) blobs were compressed after a turn ended.
   * `sessionId` is the session whose turn (or background task) ended; the pass is store-wide.
   */
  'blobs-compress': {
    sessionId: string;
    blobsMoved: number;
    bytesIn: number;
    bytesOut: number;
    pendingBlobs: number;
    pendingBytes: number;
    durationMs: number;
    error: string | null;
  };
  /** The conversation was compacted (`/compact`, or before a turn near the context window); `error` when an automatic one failed (the turn went on). */
  'conversation-compact': { sessionId: string; result: CompactionResult | null; error: { code: string; message: string } | null };
}
