import {
  abandonExec,
  beginExec,
  endExec,
  modeKind,
  recordChanges,
  SYMLINK_MODE,
  unseenChanges,
  type CaptureContext,
  type ExecCaptureOptions,
  type ExecHandle,
  type PendingChange,
  type UncoveredPath,
} from '../checkpoint/index.js';
import type { Checkpoint, JsonObject, JsonValue } from '../model/index.js';
import { diffSnapshots, type Snapshot, type SnapshotEntry } from '../workspace/index.js';

/** What a background command's capture remembers from its start. */
export interface TaskCaptureStart {
  context: CaptureContext;
  /** The scan taken right before the command started. */
  handle: ExecHandle;
  /** The session's last checkpoint `seq` at that moment: later ones were made while the task ran. */
  mark: number;
}

export interface TaskCaptureResult {
  checkpoints: Checkpoint[];
  uncovered: UncoveredPath[];
}

const UNCOVERED_IN_METADATA = 100;

/**
 * Scan before a background command starts (under the session's capture lock). The scan is also
 * saved as the session's scan state (an `endExec` right away, before the command exists: a stat
 * walk, nothing re-read), so the scan when the task ends and the next foreground command's only read
 * what changed, and changes of a task that is later discarded stay visible against it.
 */
export async function beginTaskCapture(context: CaptureContext, options: ExecCaptureOptions): Promise<TaskCaptureStart> {
  const handle = await beginExec(context, options);
  const [last] = await context.store.listCheckpoints(context.sessionId, { last: 1 });
  // Whatever changed in the instant between the two scans is recorded now, inside the task's window.
  await endExec({ ...handle, options: { ...handle.options, onProgress: undefined } } as ExecHandle);
  return { context, handle, mark: last?.seq ?? 0 };
}

/**
 * Records what a background command changed, when it ended, as `exec` checkpoints of the turn that
 * started it (its anchor is that turn's user message). Runs under the session's capture lock.
 *
 * Attribution, so each change is recorded once: the differences between the scan taken when the
 * task started and a scan now, except where a checkpoint this session recorded meanwhile (a write
 * or edit, a foreground command's capture, another task's capture) explains the path's current
 * state — that checkpoint has it. Where such a checkpoint exists and the file changed again after
 * it, the task records the change from that checkpoint's after-content, so rewinds still peel the
 * file back layer by layer. Consequences, documented: a change the task made while a foreground
 * command ran is that command's (the two cannot be told apart); a change it made to a file that a
 * later tool call then changed again is the before-content of that call's checkpoint and is not
 * recorded on its own (listed in `uncovered` as `changed_before_later_checkpoint`); edits a person
 * (or another session sharing the directory) made while the task ran are attributed to the task.
 *
 * `stillWanted` is asked right before the checkpoints are written: false (the task was stopped by
 * a rewind, or the session's branch moved on) records nothing and leaves the session's scan state
 * as it was, so the changes stay visible to the next scan as changes nobody recorded.
 */
export async function endTaskCapture(
  start: TaskCaptureStart,
  options: {
    stillWanted: () => Promise<boolean>;
    onProgress?: ExecCaptureOptions['onProgress'];
    /** Checkpoints other sessions sharing the directory recorded while the task ran: the paths they explain are theirs. */
    alsoExplainedBy?: readonly Checkpoint[];
  },
): Promise<TaskCaptureResult | null> {
  const { context, handle } = start;
  const captureOptions: ExecCaptureOptions = { ...handle.options, ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
  // A fresh begin: scans now against the session's latest scan state (stores every changed file, pins the snapshot).
  const now = await beginExec(context, captureOptions);
  const own = await context.store.listCheckpoints(context.sessionId, { afterSeq: start.mark });
  const others = options.alsoExplainedBy ?? [];
  const window = others.length === 0 ? own : [...own, ...others].sort((a, b) => a.createdAt - b.createdAt);
  const uncovered: UncoveredPath[] = [];
  const { base, unknown } = applyWindow(handle.before.snapshot, now.before.snapshot, window, uncovered);
  const diff = diffSnapshots(base, now.before.snapshot);
  const complete = handle.before.complete && now.before.complete;
  if (!complete) {
    diff.created = [];
    diff.deleted = [];
    uncovered.push({ path: '', reason: 'too_many_files', detail: 'a scan stopped at the file limit; only modifications of scanned files were recorded' });
  }
  const inUnknown = (path: string) => unknown.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  const skipReasons = new Map<string, { reason: string; detail?: string }>();
  for (const skipped of [...handle.before.skipped, ...now.before.skipped])
    skipReasons.set(skipped.path, { reason: skipped.reason, ...(skipped.detail ? { detail: skipped.detail } : {}) });
  const items: Array<{ path: string; old: SnapshotEntry | null; next: SnapshotEntry | null }> = [
    ...diff.deleted.map((item) => ({ path: item.path, old: base.get(item.path)!, next: null })),
    ...diff.modified.map((item) => ({ path: item.path, old: base.get(item.path)!, next: now.before.snapshot.get(item.path)! })),
    ...diff.created.map((item) => ({ path: item.path, old: null, next: now.before.snapshot.get(item.path)! })),
  ];
  const stored = await context.store.blobs.has([...new Set(items.flatMap((item) => (item.old?.hash ? [item.old.hash] : [])))]);
  const changes: PendingChange[] = [];
  for (const { path, old, next } of items) {
    if (inUnknown(path)) {
      uncovered.push({
        path,
        reason: 'changed_alongside_uncaptured_change',
        detail: 'a checkpoint made while the task ran could not keep this path’s content',
      });
      continue;
    }
    const op = old === null ? 'create' : next === null ? 'delete' : 'modify';
    const change: PendingChange = { op, path, beforeMode: modeOf(old), afterMode: modeOf(next), beforeHash: old?.hash ?? null, afterHash: next?.hash ?? null };
    if ((old !== null && old.hash === null) || (next !== null && next.hash === null)) {
      const skipped = skipReasons.get(path) ?? { reason: 'unreadable' };
      uncovered.push({ path, ...skipped });
      changes.push({ ...change, beforeHash: null, afterHash: null, skipReason: skipped.reason });
    } else if (old?.hash && !stored.has(old.hash)) {
      uncovered.push({ path, reason: 'before_missing', detail: 'the previous content was not in the blob store' });
      changes.push({ ...change, beforeHash: null, afterHash: null, skipReason: 'before_missing' });
    } else {
      changes.push(change);
    }
  }
  // Names that are not UTF-8 and ignored paths the task deleted: recorded `skipped`, listed as uncovered.
  const unseen = unseenChanges(handle.before, now.before);
  changes.push(...unseen.changes);
  uncovered.push(...unseen.uncovered);
  if (!(await options.stillWanted())) {
    await abandonExec(now);
    return null;
  }
  const origin = { source: 'exec' as const, toolName: handle.options.toolName ?? null, toolCallId: handle.options.toolCallId ?? null };
  const checkpoints = await recordChanges(context, origin, changes);
  // Closes the fresh begin: records what changed in the last instants (also the task's, same call),
  // saves the scan state for the next command and marks the turn `execUsed`.
  const closing = await endExec(now);
  checkpoints.push(...closing.checkpoints);
  if (context.turnId !== null && uncovered.length > 0) await markUncovered(context, uncovered, handle.options.command ?? null);
  return { checkpoints, uncovered: [...uncovered, ...closing.uncovered] };
}

type PathState = { hash: string | null; mode: number | null } | null;

/**
 * The task's start snapshot with every path a checkpoint of the window touched set to that
 * checkpoint's after-state (null: gone). Paths whose content a checkpoint could not keep (skipped,
 * directory renames) are `unknown`: the task records nothing under them. Changes before a window
 * checkpoint that it does not explain (the file was not what the checkpoint found) go to `uncovered`.
 */
function applyWindow(start: Snapshot, current: Snapshot, window: readonly Checkpoint[], uncovered: UncoveredPath[]): { base: Snapshot; unknown: string[] } {
  const last = new Map<string, PathState>();
  const unknown: string[] = [];
  const stateOf = (path: string): PathState => {
    if (last.has(path)) return last.get(path)!;
    const entry = start.get(path);
    return entry ? { hash: entry.hash, mode: modeOf(entry) } : null;
  };
  const step = (path: string, before: PathState, after: PathState) => {
    const was = stateOf(path);
    if ((was?.hash ?? null) !== (before?.hash ?? null) || (was === null) !== (before === null)) {
      uncovered.push({
        path,
        reason: 'changed_before_later_checkpoint',
        detail: 'changed while the task ran, then changed again by a later tool call: that call’s checkpoint keeps the content in between',
      });
    }
    last.set(path, after);
  };
  for (const checkpoint of window) {
    if (checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir') continue;
    const isDirectory = modeKind(checkpoint.beforeMode) === 'dir' || modeKind(checkpoint.afterMode) === 'dir';
    if (checkpoint.status === 'skipped' || isDirectory) {
      unknown.push(checkpoint.path);
      if (checkpoint.toPath) unknown.push(checkpoint.toPath);
      continue;
    }
    const before: PathState = checkpoint.op === 'create' ? null : { hash: checkpoint.beforeHash, mode: checkpoint.beforeMode };
    const after: PathState = checkpoint.op === 'delete' ? null : { hash: checkpoint.afterHash, mode: checkpoint.afterMode };
    if (checkpoint.op === 'rename' || checkpoint.op === 'move') {
      // The content leaves `path` and arrives at `toPath`.
      step(checkpoint.path, before, null);
      if (checkpoint.toPath) step(checkpoint.toPath, null, after);
    } else {
      step(checkpoint.path, before, after);
    }
  }
  const base: Snapshot = new Map(start);
  for (const [path, state] of last) {
    if (state === null) {
      base.delete(path);
      continue;
    }
    const seen = current.get(path) ?? start.get(path);
    const mode = state.mode ?? (seen ? modeOf(seen) : null) ?? 0o644;
    base.set(path, {
      kind: modeKind(mode) === 'symlink' ? 'symlink' : 'file',
      hash: state.hash,
      mode: mode & 0o7777,
      // Not a stat of anything: only kind, mode and hash are compared when both hashes are known.
      size: seen?.size ?? 0,
      mtimeMs: 0,
      ctimeMs: 0,
      ino: 0,
    });
  }
  return { base, unknown };
}

function modeOf(entry: SnapshotEntry | null): number | null {
  if (entry === null) return null;
  return entry.kind === 'symlink' ? SYMLINK_MODE | entry.mode : entry.mode;
}

/** Adds paths the task's capture could not keep to its turn (`partiallyProtected`, `uncovered`, `uncoveredCount`). */
async function markUncovered(context: CaptureContext, uncovered: readonly UncoveredPath[], command: string | null): Promise<void> {
  const turn = await context.store.getTurn(context.turnId!);
  const earlier = Array.isArray(turn.metadata.uncovered) ? (turn.metadata.uncovered as JsonValue[]) : [];
  const seen = new Set(earlier.map((item) => JSON.stringify(item)));
  const merged = [...earlier];
  for (const item of uncovered) {
    const value: JsonObject = { path: item.path, reason: item.reason, ...(item.detail ? { detail: item.detail } : {}), ...(command ? { command } : {}) };
    const key = JSON.stringify(value);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(value);
  }
  const previousCount = typeof turn.metadata.uncoveredCount === 'number' ? turn.metadata.uncoveredCount : earlier.length;
  await context.store.updateTurn(turn.id, {
    metadata: { partiallyProtected: true, uncovered: merged.slice(0, UNCOVERED_IN_METADATA), uncoveredCount: previousCount + (merged.length - earlier.length) },
  });
}
