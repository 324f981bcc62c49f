import { hostId } from '../model/index.js';
import type { Checkpoint, JsonObject } from '../model/index.js';
import { diffSnapshots, type ScanResult, type Snapshot, type SnapshotDiff, type SnapshotEntry } from '../workspace/index.js';
import type { WriteIntent } from '../store/write-intent.js';
import type { CaptureContext } from './capture-context.js';
import { modeOf, toPendingChanges, type UncoveredPath } from './exec-changes.js';
import { loadStateSnapshot, type LoadedScanState } from './exec-scan-state.js';
import { storeChangeContents, type PendingChange } from './record-changes.js';
import type { ScanBlobSink } from './scan-blob-sink.js';

/**
 * What a shell command's capture in flight keeps in the store (the `exec` of its write intent):
 * the before-scan, as the scan state it was compared with (`baseState`, null on a first scan that
 * saved none) amended by what it found different (`entries`, `removed`), and whose call it is. The
 * intent's hashes (the state chain and the contents the before-scan found new) are GC roots until
 * the capture ends, or, if its process dies with the command running, until the session's next
 * capture records what changed since the before-scan as this call's checkpoints.
 */
export interface ExecInFlightRecord {
  version: 1;
  rootsKey: string;
  baseState: string | null;
  entries: Record<string, SnapshotEntry>;
  removed: string[];
  turnId: string | null;
  anchorMessageId: string | null;
  toolName: string | null;
  toolCallId: string | null;
  command: string | null;
  /** The session's last checkpoint `seq` when the command started: later ones explain later changes. */
  mark: number;
}

/** The reason a killed command's turn carries in `uncovered`. */
export const CAPTURE_INTERRUPTED = 'capture_interrupted';

/** Intents of this process's captures that are still running (an intent of this process not in here was abandoned). */
const running = new Set<string>();
const HOST = hostId();

/**
 * Records the capture in flight right after its before-scan: from now on a kill of this process
 * leaves a record the next capture of the session completes. Returns the intent id.
 */
export async function recordExecInFlight(
  context: CaptureContext,
  input: {
    rootsKey: string;
    state: LoadedScanState | null;
    external: SnapshotDiff | null;
    before: Snapshot;
    hashes: readonly string[];
    options: { toolName?: string | null; toolCallId?: string | null; command?: string | null };
  },
): Promise<string> {
  const entries: Record<string, SnapshotEntry> = {};
  const removed: string[] = [];
  if (input.state === null) {
    for (const [path, entry] of input.before) entries[path] = entry;
  } else if (input.external) {
    for (const path of [...input.external.created.map((item) => item.path), ...input.external.modified.map((item) => item.path)]) {
      const entry = input.before.get(path);
      if (entry) entries[path] = entry;
    }
    for (const item of input.external.deleted) removed.push(item.path);
  }
  const [last] = await context.store.listCheckpoints(context.sessionId, { last: 1 });
  const record: ExecInFlightRecord = {
    version: 1,
    rootsKey: input.rootsKey,
    baseState: input.state?.stateHash ?? null,
    entries,
    removed,
    turnId: context.turnId,
    anchorMessageId: context.anchorMessageId,
    toolName: input.options.toolName ?? null,
    toolCallId: input.options.toolCallId ?? null,
    command: input.options.command ?? null,
    mark: last?.seq ?? 0,
  };
  const hashes = new Set(input.hashes);
  for (const hash of input.state?.chain ?? []) hashes.add(hash);
  const intent = await context.store.recordWriteIntent({ sessionId: context.sessionId, hashes: [...hashes], exec: record as unknown as JsonObject });
  running.add(intent.id);
  return intent.id;
}

/** Ends a capture in flight: its checkpoints are recorded (or it was given up), so its record goes. */
export async function finishExecInFlight(context: CaptureContext, intentId: string | null): Promise<void> {
  if (intentId === null) return;
  running.delete(intentId);
  await context.store.finishWriteIntent(intentId);
}

/** Forgets that this process runs the capture, without ending it: the next capture of the session records it. */
export function releaseExecInFlight(intentId: string | null): void {
  if (intentId !== null) running.delete(intentId);
}

/**
 * The captures of this session whose process is gone (killed with the command running), oldest
 * first. Those of another host are left alone: their process may still run.
 */
async function killedCaptures(context: CaptureContext, rootsKey: string): Promise<Array<{ intent: WriteIntent; record: ExecInFlightRecord }>> {
  const killed: Array<{ intent: WriteIntent; record: ExecInFlightRecord }> = [];
  for (const intent of await context.store.listWriteIntents()) {
    if (intent.exec === null || intent.sessionId !== context.sessionId) continue;
    const record = intent.exec as unknown as ExecInFlightRecord;
    if (record.version !== 1 || record.rootsKey !== rootsKey || !ownerGone(intent)) continue;
    killed.push({ intent, record });
  }
  return killed;
}

/**
 * Captures whose process the caller knows is gone although its pid answers (a pid reused by another
 * process): see {@link declareOwnerGone}.
 */
const declaredGone = new Set<string>();

/**
 * Declares the processes of these captures gone, whatever their pids answer now — for a caller that
 * knows no process of the store still runs (`recoverWriteIntents` with `includeLive`).
 */
export function declareOwnerGone(intentIds: Iterable<string>): void {
  for (const id of intentIds) declaredGone.add(id);
}

/** True when the process that recorded `intent` is gone (or, in this process, no longer runs that capture). */
export function ownerGone(intent: Pick<WriteIntent, 'id' | 'pid' | 'host'>): boolean {
  if (declaredGone.has(intent.id)) return true;
  if (intent.host !== HOST) return false;
  if (intent.pid === process.pid) return !running.has(intent.id);
  try {
    process.kill(intent.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Records, for each capture of this session killed with its command running, what changed between
 * its before-scan and `now` (this capture's before-scan) as `exec` checkpoints of the killed call,
 * so the contents the command overwrote are referenced and listed as its changes; its turn is
 * marked partially protected (`capture_interrupted`). Only paths that also changed since the
 * session's last saved scan (`external`) are taken: a later capture recorded the others. A path a
 * checkpoint recorded since the command started is recorded up to that checkpoint's before (that
 * checkpoint has the rest). Changes others made between the kill and now cannot be told apart and
 * are the killed call's. Returns the checkpoints and the paths they cover.
 */
export async function recoverKilledCaptures(
  context: CaptureContext,
  input: { rootsKey: string; now: ScanResult; external: SnapshotDiff | null; sink: ScanBlobSink },
): Promise<{ checkpoints: Checkpoint[]; paths: Set<string> }> {
  const checkpoints: Checkpoint[] = [];
  const paths = new Set<string>();
  const killed = await killedCaptures(context, input.rootsKey);
  // The rows below name the scan's contents: durable first.
  if (killed.length > 0) await input.sink.storeHeld(context.blobs);
  for (const { intent, record } of killed) {
    const before = await beforeOf(context, record);
    const rows = before === null ? [] : await rowsFor(context, record, before, input, paths);
    const added = await context.store.finishWriteIntent(intent.id, rows, { onlyIfPending: true });
    checkpoints.push(...added);
    if (added.length > 0) await markInterrupted(context, record, added.length);
  }
  return { checkpoints, paths };
}

async function beforeOf(context: CaptureContext, record: ExecInFlightRecord): Promise<Snapshot | null> {
  let snapshot: Snapshot;
  if (record.baseState === null) snapshot = new Map();
  else {
    const base = await loadStateSnapshot(context.blobs, record.baseState, record.rootsKey);
    // The state is pinned by the intent; unreadable, there is nothing to compare with.
    if (base === null) return null;
    snapshot = new Map(base);
  }
  for (const path of record.removed) snapshot.delete(path);
  for (const [path, entry] of Object.entries(record.entries)) snapshot.set(path, entry);
  return snapshot;
}

async function rowsFor(
  context: CaptureContext,
  record: ExecInFlightRecord,
  before: Snapshot,
  input: { now: ScanResult; external: SnapshotDiff | null; sink: ScanBlobSink },
  taken: Set<string>,
) {
  const changedSince = input.external === null ? null : new Set(pathsOf(input.external));
  const diff = diffSnapshots(before, input.now.snapshot);
  const keep = (path: string) => !taken.has(path) && (changedSince === null || changedSince.has(path));
  const later = await context.store.listCheckpoints(context.sessionId, { afterSeq: record.mark });
  const laterAt = (path: string) => later.find((checkpoint) => checkpoint.path === path || checkpoint.toPath === path);
  const direct: SnapshotDiff = { created: [], modified: [], deleted: [] };
  const uptoLater: PendingChange[] = [];
  const recordContext: CaptureContext = { ...context, turnId: record.turnId, anchorMessageId: record.anchorMessageId };
  for (const [kind, list] of [
    ['created', diff.created],
    ['modified', diff.modified],
    ['deleted', diff.deleted],
  ] as const) {
    for (const item of list) {
      const path = item.path;
      if (!keep(path)) continue;
      taken.add(path);
      const checkpoint = laterAt(path);
      if (!checkpoint) {
        (direct[kind] as unknown[]).push(item);
        continue;
      }
      // A later checkpoint of this path starts from what the command left: record up to there.
      const old = before.get(path) ?? null;
      if (checkpoint.path !== path || old?.hash === checkpoint.beforeHash || (old !== null && old.hash === null)) continue;
      const op = old === null ? 'create' : checkpoint.beforeHash === null ? 'delete' : 'modify';
      uptoLater.push({
        op,
        path,
        beforeHash: old?.hash ?? null,
        afterHash: checkpoint.beforeHash,
        beforeMode: modeOf(old),
        afterMode: checkpoint.beforeMode,
      });
    }
  }
  const uncovered: UncoveredPath[] = [];
  const changes = await toPendingChanges(recordContext, direct, { snapshot: before, skipped: [] }, input.now, uncovered);
  changes.push(...uptoLater);
  if (changes.length === 0) return [];
  return storeChangeContents(recordContext, { source: 'exec', toolName: record.toolName, toolCallId: record.toolCallId }, changes);
}

function pathsOf(diff: SnapshotDiff): string[] {
  return [...diff.created.map((item) => item.path), ...diff.modified.map((item) => item.path), ...diff.deleted.map((item) => item.path)];
}

async function markInterrupted(context: CaptureContext, record: ExecInFlightRecord, changes: number): Promise<void> {
  if (record.turnId === null) return;
  try {
    const turn = await context.store.getTurn(record.turnId);
    const earlier = Array.isArray(turn.metadata.uncovered) ? turn.metadata.uncovered : [];
    const item: JsonObject = {
      path: '',
      reason: CAPTURE_INTERRUPTED,
      detail: `the command's process was killed during its capture; ${changes} change(s) were recorded by the session's next capture, which cannot tell them from changes made meanwhile by others`,
      ...(record.command ? { command: record.command } : {}),
    };
    const count = typeof turn.metadata.uncoveredCount === 'number' ? turn.metadata.uncoveredCount : earlier.length;
    await context.store.updateTurn(turn.id, {
      metadata: { execUsed: true, partiallyProtected: true, uncovered: [...earlier, item].slice(0, 100), uncoveredCount: count + 1 },
    });
  } catch {
    // The turn is gone (retention): the checkpoints stand on their own.
  }
}
