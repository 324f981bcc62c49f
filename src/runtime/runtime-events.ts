import type { Checkpoint, EffectKind, JsonValue, MessageWithParts, Session, Turn, TurnStatus } from '../model/index.js';
import type { TurnSummary } from '../checkpoint/index.js';
import type { ForkResult } from '../fork/index.js';
import type { SessionRewindResult } from '../rewind/index.js';
import type { ToolOutput } from './tools/tool.js';

/** Where an event happened: a session's turn, or (with `subagent`) a nested run inside a tool call. */
export interface TurnScope {
  sessionId: string;
  turnId: string;
  /** Set for events of a subagent: the parent's tool call that runs it. */
  subagent?: { toolCallId: string };
}

/**
 * What the runtime emits for a UI, noun-action names, each only after what it reports committed
 * (DESIGN.md invariant 6). Streaming deltas are emitted after the streaming message holding them
 * was written (a subagent's messages live in memory only, so theirs have `messageId: null`).
 */
export interface RuntimeEvents {
  'turn-start': TurnScope & { turn: Turn; input: MessageWithParts };
  'message-part': TurnScope & { messageId: string | null; partIndex: number; type: 'text' | 'reasoning'; delta: string };
  'message-finish': TurnScope & { message: MessageWithParts };
  'tool-start': TurnScope & { toolCallId: string; toolName: string; input: JsonValue; effect: EffectKind };
  'tool-end': TurnScope & { toolCallId: string; toolName: string; output: ToolOutput; checkpointIds: string[]; messageId: string | null };
  'checkpoint-create': TurnScope & { checkpoint: Checkpoint };
  'save-point': TurnScope & { point: 'A' | 'B'; step: number; messageId: string };
  'turn-end': TurnScope & { turn: Turn; status: TurnStatus; finalMessageId: string | null; summary: TurnSummary; error: { code: string; message: string } | null };
  'rewind': { sessionId: string; session: Session; result: SessionRewindResult | null; kind: 'rewind' | 'redo' | 'save-point' | 'edit' | 'retry' };
  'fork': { sessionId: string; result: ForkResult };
  'task-start': { sessionId: string; turnId: string; taskId: string; command: string; branchGeneration: number };
  'task-end': {
    sessionId: string;
    turnId: string;
    taskId: string;
    exitCode: number | null;
    /** True when the result was thrown away: the task was stopped, or the session rewound past its turn. */
    discarded: boolean;
    reason: 'finished' | 'stopped' | 'stale-branch';
    /** The task_notification message the result was delivered in (null: discarded, or queued for the running turn). */
    messageId: string | null;
  };
}
