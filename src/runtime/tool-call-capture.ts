import { AsyncLocalStorage } from 'node:async_hooks';
import { beginExec, CheckpointedFs, endExec, type CaptureContext, type ExecScanProgress, type UncoveredPath } from '../checkpoint/index.js';
import { ConflictError, type Checkpoint } from '../model/index.js';
import { endTaskCapture } from './background-capture.js';

/** What one tool call changed, as recorded in its turn. */
export interface ToolCallCapture {
  /** Every checkpoint recorded while the call ran: its checkpointed-fs writes and what the scan found, in order. */
  checkpoints: Checkpoint[];
  /** Paths whose change could not be kept (ignored by `.gitignore`, too large, unreadable …), and why. */
  uncovered: UncoveredPath[];
  /** True when `uncovered` is not empty: the turn cannot be undone completely. */
  partiallyProtected: boolean;
}

export interface ToolCallCaptureOptions {
  toolName: string;
  toolCallId: string;
  onProgress?: (progress: ExecScanProgress) => void;
}

/** How a captured call ended: its value, or what it threw (its changes are recorded either way). */
export type CapturedOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface RunningCall {
  context: CaptureContext;
  toolName: string;
  toolCallId: string;
  fs: CheckpointedFs | null;
}

const running = new AsyncLocalStorage<RunningCall>();

/**
 * Runs one tool call so that every file change it makes is a checkpoint of the turn, however it
 * makes it. The workspace is scanned right before the call (the same scan shell commands get, so
 * with the stat cache only changed files are read) and again after it:
 *
 * - changes written through {@link checkpointedFs} (or any other checkpointing API) are recorded
 *   by that API as they happen, with their before-content, and the scan leaves them alone;
 * - everything else the call changed — `node:fs` writes, a process it spawned — is found by the
 *   scan and recorded as `exec` checkpoints of the same tool call; a file changed both ways is
 *   recorded from the last checkpointed state, so a rewind still peels it back layer by layer;
 * - what no scan can keep (ignored paths, files over the size limit, unreadable ones) is returned
 *   in `uncovered` and marked on the turn (`partiallyProtected`), never dropped silently.
 *
 * The call's changes are recorded whether it returns or throws. The caller holds the session's
 * capture lock around this, so no other capture runs meanwhile and nothing is misattributed.
 *
 * @example
 * const { outcome, capture } = await captureToolCall(context, () => tool.execute(input), { toolName: 'format', toolCallId })
 * if (capture.partiallyProtected) console.warn(capture.uncovered)
 */
export async function captureToolCall<T>(
  context: CaptureContext,
  fn: () => Promise<T> | T,
  options: ToolCallCaptureOptions,
): Promise<{ outcome: CapturedOutcome<T>; capture: ToolCallCapture }> {
  const scanOptions = { toolName: options.toolName, toolCallId: options.toolCallId, ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
  const handle = await beginExec(context, scanOptions);
  const [last] = await context.store.listCheckpoints(context.sessionId, { last: 1 });
  const mark = last?.seq ?? 0;
  let outcome: CapturedOutcome<T>;
  try {
    outcome = { ok: true, value: await running.run({ context, toolName: options.toolName, toolCallId: options.toolCallId, fs: null }, fn) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const direct = await context.store.listCheckpoints(context.sessionId, { afterSeq: mark });
  let uncovered: UncoveredPath[];
  if (direct.length === 0) {
    uncovered = (await endExec(handle)).uncovered;
  } else {
    // Some changes were checkpointed as they happened: the scan records only what those do not explain.
    const result = await endTaskCapture(
      { context, handle, mark },
      { stillWanted: async () => true, ...(options.onProgress ? { onProgress: options.onProgress } : {}) },
    );
    uncovered = result?.uncovered ?? [];
  }
  const checkpoints = await context.store.listCheckpoints(context.sessionId, { afterSeq: mark });
  return { outcome, capture: { checkpoints, uncovered, partiallyProtected: uncovered.length > 0 } };
}

/**
 * The checkpointed file system of the tool call running now (inside a tool wrapped by
 * `checkpointTools`, or a runtime tool the runtime scans): writes, deletes and moves through it
 * are recorded before they happen, with the tool's name and call id, instead of being found by
 * the scan afterwards. Outside such a call it throws `NOT_IN_TOOL_CALL`.
 *
 * @example
 * const notes = tool({
 *   inputSchema: z.object({ text: z.string() }),
 *   execute: async ({ text }) => (await checkpointedFs().writeFile('notes.md', text), 'saved'),
 * })
 */
export function checkpointedFs(): CheckpointedFs {
  const call = running.getStore();
  if (!call) {
    throw new ConflictError({
      code: 'NOT_IN_TOOL_CALL',
      message:
        'checkpointedFs() works only while a tool wrapped by checkpointTools (or a runtime tool with effect "workspace") runs; call it inside the tool\'s execute.',
    });
  }
  call.fs ??= new CheckpointedFs(call.context, { toolName: call.toolName, toolCallId: call.toolCallId });
  return call.fs;
}

/** One line for the model and the person: which paths the capture could not keep (at most five named). */
export function uncoveredNote(uncovered: readonly UncoveredPath[]): string {
  if (uncovered.length === 0) return '';
  const named = uncovered.slice(0, 5).map((path) => `${path.path.replace(/^workspace:/, '') || '(workspace)'} ${path.reason}`);
  const more = uncovered.length > 5 ? ` and ${uncovered.length - 5} more` : '';
  return `[not every change could be checkpointed, so undo cannot restore it: ${named.join(', ')}${more}]`;
}
