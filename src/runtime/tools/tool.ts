import type { z } from 'zod';
import type { CaptureContext, ExecScanProgress } from '../../checkpoint/index.js';
import type { Checkpoint, EffectKind, JsonObject, JsonValue, Session } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import type { Workspace } from '../../workspace/index.js';

/** A tool result as stored in a `tool-result` part and shown to the model (AI SDK output shape). */
export type ToolOutput = { type: 'text'; value: string } | { type: 'json'; value: JsonValue } | { type: 'error-text'; value: string };

export interface ToolResult {
  output: ToolOutput;
  /** Kept in the tool message's metadata, not shown to the model (a subagent's transcript …). */
  metadata?: JsonObject;
}

/** What a subagent run left: its answer and the child session holding its transcript. */
export interface SubagentRun {
  text: string;
  /** The child session its messages were written to (metadata `subagent` links it to this call). */
  sessionId: string;
  status: 'complete' | 'interrupted' | 'error' | 'step-limit';
  /** Messages in its transcript. */
  messages: number;
}

/** A shell command started in the background by the bash tool. */
export interface BackgroundStart {
  taskId: string;
  pid: number | null;
}

/** What a tool gets to work with while it runs inside a turn. */
export interface ToolContext {
  store: Store;
  session: Session;
  sessionId: string;
  turnId: string;
  toolCallId: string;
  /** The session's roots: every path a tool touches goes through `workspace.resolve`, which refuses paths outside them. */
  workspace: Workspace;
  /** The turn's capture context (same turn and anchor for a subagent's changes). */
  capture(): Promise<CaptureContext>;
  /** Report checkpoints the tool's changes committed (the runtime emits `checkpoint-create`). */
  recordCheckpoints(checkpoints: readonly Checkpoint[]): void;
  /** Aborted when the person interrupts the turn. */
  signal: AbortSignal;
  /**
   * Start a command in the background, registered with the task registry for this turn; the
   * workspace is scanned first, so what it changes is checkpointed when it ends.
   */
  startBackground(command: string, options: { description?: string }): Promise<BackgroundStart>;
  /** Run a nested agent loop whose file changes belong to this turn. Absent inside a subagent. */
  runSubagent?: (prompt: string, options: { description?: string }) => Promise<SubagentRun>;
  /**
   * Run `fn` under the session's capture lock. The runtime already holds it while a `workspace`
   * tool runs; only a tool with `runsTools` (or an `external` one that also writes files) needs it.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Pass as an exec capture's `onProgress`: reported as `scan-progress` events. */
  reportScanProgress(progress: ExecScanProgress): void;
  settings: { bashTimeoutMs: number; maxOutputChars: number };
}

/**
 * How a `workspace` tool's file changes become checkpoints. `scan` (the default): the runtime scans
 * the workspace right before and after each call, so whatever the tool changes — with `node:fs`,
 * a process it spawns, or `checkpointedFs()` — is checkpointed in the turn, and what cannot be kept
 * (ignored paths, files too large) is named in the tool's result. `self`: the tool records its
 * changes itself (`applyToolWrite`, `applyToolEdit`, `captureExec`) and reports them with
 * `recordCheckpoints`; the runtime only holds the capture lock around it.
 */
export type ToolCapture = 'scan' | 'self';

/**
 * A tool the model can call. `effect` says what running it does to the world: `none` (reads
 * only), `workspace` (changes files; every change is checkpointed, so rewinds undo it — see
 * {@link ToolCapture}), `external` (changes something outside the workspace; the runtime records
 * it in the effects ledger and applies the session's effect policy).
 *
 * @example
 * const format = defineTool({
 *   name: 'format',
 *   description: 'Format the sources',
 *   effect: 'workspace', // writes with node:fs: the runtime scans around each call
 *   inputSchema: z.object({}),
 *   execute: async (input, context) => text(await runPrettier(context.workspace.primaryRoot.dir)),
 * })
 */
/**
 * A tool of any input type, for collections of tools (the runtime's tool list and map). `execute`
 * takes its input as a parameter, so `RuntimeTool<{ path: string }>` is not a `RuntimeTool<unknown>`;
 * each tool's own schema checks its input before `execute` runs.
 */
// biome-ignore lint/suspicious/noExplicitAny: parameter variance (see above); inputs are checked by each tool's schema.
export type AnyRuntimeTool = RuntimeTool<any>;

export interface RuntimeTool<Input = unknown> {
  name: string;
  description: string;
  effect: EffectKind;
  /**
   * True for a tool that runs other tools (the subagent). A `workspace` tool runs under its
   * session's capture lock (see `CaptureLocks`), which is not reentrant; such a tool is not wrapped,
   * and the calls it runs take the lock themselves.
   */
  runsTools?: boolean;
  /** For a `workspace` tool: `scan` (default) or `self`; see {@link ToolCapture}. Ignored for other effects. */
  capture?: ToolCapture;
  inputSchema: z.ZodType<Input, unknown>;
  /** Thrown errors become `error-text` results the model sees (a `WaypointError`'s message says what to do). */
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}

/**
 * Declare a tool with its input type inferred from the schema.
 *
 * @example
 * const shout = defineTool({ name: 'shout', description: 'Upper-case a text', effect: 'none', inputSchema: z.object({ text: z.string() }), execute: async (input) => text(input.text.toUpperCase()) });
 */
export function defineTool<Schema extends z.ZodType>(tool: {
  name: string;
  description: string;
  effect: EffectKind;
  runsTools?: boolean;
  capture?: ToolCapture;
  inputSchema: Schema;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolResult>;
}): RuntimeTool<z.infer<Schema>> {
  return tool as RuntimeTool<z.infer<Schema>>;
}

export const text = (value: string): ToolResult => ({ output: { type: 'text', value } });
export const errorText = (value: string): ToolResult => ({ output: { type: 'error-text', value } });

/** Keep the last `max` characters of a long output, saying how much was cut. */
export function truncateOutput(value: string, max: number): string {
  if (value.length <= max) return value;
  return `[${value.length - max} earlier characters cut]\n${value.slice(value.length - max)}`;
}
