import { callable, type Checkpoint, type JsonObject, type JsonValue } from '../model/index.js';
import { diffSnapshots, scanWorkspace, type ScanResult, type SkippedPath, type Snapshot, type SnapshotDiff, type StatCacheState } from '../workspace/index.js';
import type { CaptureContext } from './capture-context.js';
import { checkArgument, checkCaptureContext, ExecCaptureOptionsSchema, ExecHandleSchema } from './capture-input-schemas.js';
import { loadScanState, pinSnapshot, rootsKeyOf, saveScanState, type LoadedScanState } from './exec-scan-state.js';
import { changedHashes, gainedHashes, toPendingChanges, type UncoveredPath } from './exec-changes.js';
import { finishExecInFlight, recordExecInFlight, recoverKilledCaptures, releaseExecInFlight } from './exec-in-flight.js';
import { DEFAULT_CHECKPOINT_MAX_FILE_SIZE } from './file-capture.js';
import { recordChanges } from './record-changes.js';
import { ScanBlobSink } from './scan-blob-sink.js';
import { StoreWatch } from './store-watch.js';
import { unseenChanges } from './unseen-changes.js';

export interface ExecCaptureOptions {
  toolName?: string | null;
  toolCallId?: string | null;
  /** The command, kept in the turn's metadata with what it left uncovered. */
  command?: string | null;
  /** Files above this are not read: their changes are recorded `skipped` / `too_large`. Default 10 MiB. */
  maxFileSize?: number;
  /** Stop scanning after this many files (the scan is then incomplete: no creations or deletions are inferred). Default 100,000. */
  maxFiles?: number;
  /** Contents held in memory during a scan before falling back to re-reading (default 256 MiB). */
  memoryBudgetBytes?: number;
  /**
   * Progress of a long scan (a first scan of a big workspace), for a progress bar. Only scans that
   * last report: `read` at most every 100 ms once a scan has run 100 ms; `store` when the contents
   * read are being made durable, if the scan has run 100 ms or read 1000 files; `done` after any of
   * those. The scan is synchronous, so `read` calls arrive while it blocks the event loop: draw
   * synchronously.
   */
  onProgress?: (progress: ExecScanProgress) => void;
}

/** One progress report of an exec capture's scan (see `ExecCaptureOptions.onProgress`). */
export interface ExecScanProgress {
  /** The scan before the command or the one after it. */
  scan: 'before' | 'after';
  /** `read`: reading and hashing changed (on a first scan: all) files; `store`: making their contents durable; `done`: finished. */
  phase: 'read' | 'store' | 'done';
  /** Files read and hashed so far (files the stat cache vouches for are not read). */
  filesRead: number;
  bytesRead: number;
  /** Files the scan saw in all: null while reading (the scanner does not report its walk), known at `store` and `done`. */
  files: number | null;
  elapsedMs: number;
}

export type { UncoveredPath } from './exec-changes.js';

/** An exec capture in progress: the before-scan, taken right before the command. */
export interface ExecHandle {
  readonly context: CaptureContext;
  readonly options: ExecCaptureOptions;
  readonly before: ScanResult;
  /** Changes since this session's previous scan, made by someone else (other sessions, a person, this session's own tool/fs writes); not recorded. */
  readonly external: SnapshotDiff | null;
  readonly state: LoadedScanState | null;
  readonly rootsKey: string;
  /** Hashes pinned under the delta owner (null: the snapshot was never pinned whole). */
  pinDelta: string[] | null;
  /** The store's own files when they lie in the workspace: never scanned as its files, checked after the command. */
  readonly storeWatch: StoreWatch;
  /** The write intent that records this capture in flight (null once ended or abandoned). */
  inFlight: string | null;
  /** Checkpoints this begin recorded for earlier captures of the session killed with their command running. */
  readonly recovered: Checkpoint[];
}

/** What a command changed, as recorded. */
export interface ExecCaptureResult {
  checkpoints: Checkpoint[];
  uncovered: UncoveredPath[];
  /** True when something the command may have changed could not be kept (see `uncovered`). */
  partiallyProtected: boolean;
  /**
   * Store files (inside the workspace) the command deleted, moved, replaced or overwrote: also in
   * `uncovered` as `store_touched`. Empty unless the command reached the store.
   */
  storeTouched: string[];
  external: SnapshotDiff | null;
  stats: { before: ScanResult['stats']; after: ScanResult['stats'] };
}

const DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024;
/** At most this many uncovered paths are kept in a turn's metadata (the count is always exact). */
const UNCOVERED_IN_METADATA = 100;

/**
 * Scans the tracked roots right before a shell command. The stat cache persisted by the previous
 * scan of this session means only changed files are read; the first scan of a workspace reads
 * every tracked file and stores it as a blob (they are the before contents of whatever the command
 * changes). Works without git.
 *
 * Attribution: only differences between this before-scan and the after-scan in {@link endExec}
 * are recorded as the command's. Changes that happened since the session's previous scan (another
 * session or a person editing the same directory, or this session's own tool writes, which are
 * checkpointed by themselves) are reported as `external` and not recorded. Changes someone else
 * makes *while* the command runs cannot be told apart and are attributed to the command.
 *
 * A kill at any instant: once the before-scan is stored, the capture is recorded in flight (a
 * write intent naming the before-scan and the call). If this process dies before {@link endExec},
 * the session's next capture (in any process) records what changed since that before-scan as the
 * killed call's `exec` checkpoints (see `recoverKilledCaptures`), so what the command overwrote
 * stays referenced and is listed as its change; until then the intent keeps it from GC.
 */
export async function beginExec(context: CaptureContext, options: ExecCaptureOptions = {}): Promise<ExecHandle> {
  return beginScan(context, options, async (began, sink) => {
    await sink.storeHeld(context.blobs);
    const { state, external, before, rootsKey } = began;
    const inFlight = await recordExecInFlight(context, { rootsKey, state, external, before: before.snapshot, hashes: gainedHashes(external), options });
    return { context, options, ...began, inFlight };
  });
}

/** What {@link beginScan} hands its `finish`: an exec handle but for its in-flight record. */
export type BeganScan = Omit<ExecHandle, 'context' | 'options' | 'inFlight'>;

/**
 * The before-scan of {@link beginExec} up to its in-flight record: scans (the last batch of new
 * contents held back in `sink`, see `ScanBlobSink.storeHeld`), records captures killed in flight,
 * moves the snapshot pins, then runs `finish`, which must store the held contents (alone or with
 * blobs of its own, in one append) before it commits any row naming them. The contents stay
 * pinned until `finish` returns.
 */
export async function beginScan<T>(
  context: CaptureContext,
  options: ExecCaptureOptions,
  finish: (began: BeganScan, sink: ScanBlobSink) => Promise<T>,
): Promise<T> {
  checkCaptureContext(context);
  checkArgument(ExecCaptureOptionsSchema, options, 'options');
  const rootsKey = rootsKeyOf(context.workspace);
  const storeWatch = StoreWatch.take(context.workspace, context.store.location);
  const state = await loadScanState(context.store, context.blobs, context.sessionId, rootsKey);
  const sink = firstScanSink(context, options, state?.snapshot ?? null);
  try {
    const before = await scanAndStore(context, options, 'before', state?.cache ?? null, storeWatch.inodes, sink, true);
    const external = state ? diffSnapshots(state.snapshot, before.snapshot) : null;
    // Captures of this session killed with their command running: recorded before the pins move on.
    const recovered = await recoverKilledCaptures(context, { rootsKey, now: before, external, sink });
    let pinDelta = state?.pinDelta ?? null;
    if (!state || changedHashes(external)) pinDelta = await pinSnapshot(context.store, context.sessionId, before.snapshot, pinDelta, gainedHashes(external));
    return await finish({ before, external, state, rootsKey, pinDelta, storeWatch, recovered: recovered.checkpoints }, sink);
  } finally {
    // The contents stored are pinned by the snapshot pins now (or were given up).
    await sink.release();
  }
}

/**
 * Scans again after the command, records every difference as an `exec` checkpoint (before content
 * from the before-scan's blobs, after content stored now; a rename shows as delete + create), and
 * persists the scan state for the next command. The turn gets `execUsed: true`, and
 * `partiallyProtected: true` with `uncovered` when something could not be kept: files too large or
 * unreadable, an incomplete scan (too many files: no creations or deletions inferred), paths
 * excluded by ignore rules (present, or deleted by the command), or names that are not valid UTF-8
 * (see `unseenChanges`: those changes are also recorded as `skipped` checkpoints, so a rewind
 * reports them as not restored).
 */
export async function endExec(handle: ExecHandle): Promise<ExecCaptureResult> {
  checkArgument(ExecHandleSchema, handle, 'handle');
  const { options, before } = handle;
  const sink = new ScanBlobSink(before.snapshot, options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET);
  try {
    const result = await recordAfterScan(handle, sink);
    await finishExecInFlight(handle.context, handle.inFlight);
    handle.inFlight = null;
    return result;
  } finally {
    // Failed: the capture stays in flight, for the session's next capture to record.
    releaseExecInFlight(handle.inFlight);
    // Released once the checkpoints and snapshot pins naming the contents committed.
    await sink.release();
  }
}

/**
 * Gives up a capture begun with {@link beginExec} without recording anything (a background task a
 * rewind stopped): its changes stay visible to the next scan as changes nobody recorded.
 */
export async function abandonExec(handle: ExecHandle): Promise<void> {
  checkArgument(ExecHandleSchema, handle, 'handle');
  await finishExecInFlight(handle.context, handle.inFlight);
  handle.inFlight = null;
}

async function recordAfterScan(handle: ExecHandle, sink: ScanBlobSink): Promise<ExecCaptureResult> {
  const { context, options, before } = handle;
  const after = await scanAndStore(context, options, 'after', before.cache, handle.storeWatch.inodes, sink, true);
  const complete = before.complete && after.complete;
  const diff = diffSnapshots(before.snapshot, after.snapshot);
  if (!complete) {
    // A path missing from a truncated scan is not a deleted (or created) file.
    diff.created = [];
    diff.deleted = [];
  }
  const uncovered: UncoveredPath[] = [];
  const changes = await toPendingChanges(context, diff, before, after, uncovered);
  // What the scans saw but cannot keep (names that are not UTF-8, ignored paths deleted): recorded
  // as `skipped` rows, so a rewind reports them as not restored, and listed as uncovered.
  const unseen = unseenChanges(before, after);
  changes.push(...unseen.changes);
  uncovered.push(...unseen.uncovered);
  if (!complete)
    uncovered.push({
      path: '',
      reason: 'too_many_files',
      detail: `the scan stopped at ${options.maxFiles ?? 'the file limit'} files; only modifications of scanned files were recorded`,
    });
  for (const skipped of after.skipped) {
    if (skipped.reason === 'ignored' || skipped.reason === 'unreadable' || skipped.reason === 'store_file') uncovered.push(fromSkipped(skipped));
  }
  const storeTouched = handle.storeWatch.changes();
  uncovered.push(...storeTouched);
  let checkpoints: Checkpoint[] = [];
  const record = async () => {
    checkpoints = await recordChanges(context, { source: 'exec', toolName: options.toolName ?? null, toolCallId: options.toolCallId ?? null }, changes);
  };
  if (!handle.state || changes.length > 0 || before.stats.hashed > 0 || after.stats.hashed > 0) {
    if (changedHashes(diff) || handle.pinDelta === null) {
      handle.pinDelta = await pinSnapshot(context.store, context.sessionId, after.snapshot, handle.pinDelta, gainedHashes(diff));
    }
    // The new contents and the state in one append; the checkpoints after both are durable and
    // before the state naming the after-scan becomes the session's (a kill in between leaves the
    // previous state, so the next capture finds the changes again).
    await saveScanState(
      context.store,
      context.blobs,
      context.sessionId,
      handle.state,
      { rootsKey: handle.rootsKey, snapshot: after.snapshot, cache: after.cache, complete: after.complete, pinDelta: handle.pinDelta },
      { writeBlobs: (items) => sink.storeHeld(context.blobs, items), beforeEntry: record },
    );
  } else {
    await sink.storeHeld(context.blobs);
    await record();
  }
  const partiallyProtected = uncovered.length > 0;
  if (context.turnId !== null) await markTurn(context, uncovered, options.command ?? null);
  return {
    checkpoints,
    uncovered,
    partiallyProtected,
    storeTouched: storeTouched.map((item) => item.path),
    external: handle.external,
    stats: { before: before.stats, after: after.stats },
  };
}

/**
 * Runs `fn` between {@link beginExec} and {@link endExec}. The capture is recorded whether `fn`
 * succeeds or throws (a failed command may still have changed files); its error is rethrown.
 *
 * @example
 * const { value, capture } = await captureExec(context, () => run('bash', ['-c', 'npm run build']))
 * if (capture.partiallyProtected) console.warn(capture.uncovered)
 */
export async function captureExec<T>(
  context: CaptureContext,
  fn: () => Promise<T> | T,
  options: ExecCaptureOptions = {},
): Promise<{ value: T; capture: ExecCaptureResult }> {
  checkCaptureContext(context);
  checkArgument(callable, fn, 'fn');
  const handle = await beginExec(context, options);
  let value: T;
  try {
    value = await fn();
  } catch (error) {
    await endExec(handle);
    throw error;
  }
  return { value, capture: await endExec(handle) };
}

async function scanAndStore(
  context: CaptureContext,
  options: ExecCaptureOptions,
  scan: ExecScanProgress['scan'],
  cache: StatCacheState | null,
  excludeInodes: ReadonlyMap<number, number>,
  sink: ScanBlobSink,
  hold: boolean,
): Promise<ScanResult> {
  const progress = options.onProgress ? new ScanProgress(scan, options.onProgress) : null;
  let result: ScanResult;
  try {
    result = scanWorkspace(context.workspace, {
      cache,
      maxFileSize: options.maxFileSize ?? DEFAULT_CHECKPOINT_MAX_FILE_SIZE,
      ...(options.maxFiles === undefined ? {} : { maxFiles: options.maxFiles }),
      onContent: progress ? progress.wrap(sink.onContent) : sink.onContent,
      excludeInodes,
      ...(context.scanIo === undefined ? {} : { io: context.scanIo }),
    });
  } catch (error) {
    sink.abort();
    throw error;
  }
  progress?.stored(result.stats.files);
  await sink.flush(context.blobs, context.workspace, result.snapshot, result.cache.scanStartedAtMs - result.cache.racyWindowMs, { hold });
  progress?.done(result.stats.files);
  return result;
}

/** The before-scan's sink: the first scan stores every tracked file, streamed raw as it is read (compressed later by GC / BlobStore.compress). */
function firstScanSink(context: CaptureContext, options: ExecCaptureOptions, previous: Snapshot | null): ScanBlobSink {
  return new ScanBlobSink(previous, options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET, previous === null ? context.blobs.openDeferredBatch() : null);
}

/** Throttled progress of one scan: silent unless the scan lasts (see `ExecCaptureOptions.onProgress`). */
class ScanProgress {
  private readonly started = performance.now();
  private last = 0;
  private reported = false;
  private filesRead = 0;
  private bytesRead = 0;

  constructor(
    private readonly scan: ExecScanProgress['scan'],
    private readonly report: (progress: ExecScanProgress) => void,
  ) {}

  wrap(onContent: (path: string, content: Buffer, hash: string) => void): (path: string, content: Buffer, hash: string) => void {
    return (path, content, hash) => {
      onContent(path, content, hash);
      this.filesRead++;
      this.bytesRead += content.length;
      const now = performance.now();
      if (now - this.started >= 100 && now - this.last >= 100) {
        this.last = now;
        this.emit('read', null, now);
      }
    };
  }

  stored(files: number): void {
    const now = performance.now();
    if (this.reported || now - this.started >= 100 || this.filesRead >= 1000) this.emit('store', files, now);
  }

  done(files: number): void {
    if (this.reported) this.emit('done', files, performance.now());
  }

  private emit(phase: ExecScanProgress['phase'], files: number | null, now: number): void {
    this.reported = true;
    try {
      this.report({ scan: this.scan, phase, filesRead: this.filesRead, bytesRead: this.bytesRead, files, elapsedMs: Math.round(now - this.started) });
    } catch {
      // A failing progress listener must not fail the capture.
    }
  }
}

function fromSkipped(skipped: SkippedPath): UncoveredPath {
  return { path: skipped.path, reason: skipped.reason, ...(skipped.detail ? { detail: skipped.detail } : {}) };
}

async function markTurn(context: CaptureContext, uncovered: UncoveredPath[], command: string | null): Promise<void> {
  const turn = await context.store.getTurn(context.turnId!);
  const metadata: JsonObject = { execUsed: true };
  if (uncovered.length > 0) {
    const earlier = Array.isArray(turn.metadata.uncovered) ? (turn.metadata.uncovered as JsonValue[]) : [];
    const seen = new Set(earlier.map((item) => JSON.stringify(item)));
    const merged = [...earlier];
    for (const item of uncovered) {
      const value: JsonObject = { path: item.path, reason: item.reason, ...(item.detail ? { detail: item.detail } : {}), ...(command ? { command } : {}) };
      const key = JSON.stringify(value);
      if (!seen.has(key)) {
        seen.add(key);
        merged.push(value);
      }
    }
    const previousCount = typeof turn.metadata.uncoveredCount === 'number' ? turn.metadata.uncoveredCount : earlier.length;
    metadata.partiallyProtected = true;
    metadata.uncovered = merged.slice(0, UNCOVERED_IN_METADATA);
    metadata.uncoveredCount = previousCount + (merged.length - earlier.length);
  }
  await context.store.updateTurn(turn.id, { metadata });
}
