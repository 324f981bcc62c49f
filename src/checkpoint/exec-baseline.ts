import type { ScanResult, SkippedPath, SnapshotDiff } from '../workspace/index.js';
import type { CaptureContext } from './capture-context.js';
import { checkCaptureContext } from './capture-input-schemas.js';
import { beginScan, endExec, type ExecCaptureOptions, type ExecCaptureResult, type ExecHandle } from './exec-capture.js';
import { loadScanState, rootsKeyOf, saveScanState } from './exec-scan-state.js';
import { StoreWatch } from './store-watch.js';

/** The session's scan baseline after {@link markScanBaseline}: what its next {@link captureSinceBaseline} compares against. */
export interface ScanBaseline {
  /** Changes since the session's previous scan (a person's edits, other sessions, tool writes): not recorded. */
  external: SnapshotDiff | null;
  /** What the scan could not cover: give it back to {@link captureSinceBaseline}, so paths it already skipped are not reported as changed. */
  skipped: SkippedPath[];
}

/**
 * The before-half of an exec capture for a caller that cannot keep an `ExecHandle` in memory
 * until the command ends (a hook handler is a new process for each event): scans the workspace
 * now and saves the result as the session's scan state, so a later process can record what
 * changed since with {@link captureSinceBaseline}. Changes found since the session's previous
 * scan are returned as `external` and not recorded, exactly as `beginExec` does.
 */
export async function markScanBaseline(context: CaptureContext, options: ExecCaptureOptions = {}): Promise<ScanBaseline> {
  checkCaptureContext(context);
  return beginScan(context, options, async (began, sink) => {
    // A scan that found every file as the saved state has it leaves that state as the baseline: the
    // same contents; its older stat signatures and scan start only make a later scan read a file again.
    const { state, external, before } = began;
    const unchanged =
      state !== null &&
      external !== null &&
      external.created.length + external.modified.length + external.deleted.length === 0 &&
      before.complete === state.complete;
    if (unchanged) await sink.storeHeld(context.blobs);
    else {
      // The contents the scan found new and the state naming them: one append, one fsync. No
      // in-flight record is needed here: the command has not started, and a kill before the
      // state's entry leaves the previous state as the baseline (what changed since counts as
      // the command's at its after-half: recorded, only attributed more widely).
      await saveScanState(
        context.store,
        context.blobs,
        context.sessionId,
        state,
        { rootsKey: began.rootsKey, snapshot: before.snapshot, cache: before.cache, complete: before.complete, pinDelta: began.pinDelta ?? [] },
        { writeBlobs: (items) => sink.storeHeld(context.blobs, items) },
      );
    }
    return { external, skipped: before.skipped };
  });
}

/**
 * The after-half: scans again and records every difference from the session's saved scan state
 * (the last {@link markScanBaseline}, or the last exec capture) as `exec` checkpoints of the
 * context's turn, then saves the new state — `endExec` over a before-scan loaded from the store.
 * Returns null, recording nothing, when the session has no saved state for these roots yet (the
 * changes then cannot be told from what was there before: the state is saved for next time).
 */
export async function captureSinceBaseline(
  context: CaptureContext,
  options: ExecCaptureOptions = {},
  skipped: readonly SkippedPath[] = [],
): Promise<ExecCaptureResult | null> {
  const handle = await baselineHandle(context, options, skipped);
  if (handle === null) {
    await markScanBaseline(context, options);
    return null;
  }
  return endExec(handle);
}

/**
 * An exec handle whose before-scan is the session's saved scan state (null when there is none for
 * these roots): for `endExec`, or for a capture that must leave alone the changes checkpoints
 * recorded meanwhile explain (the runtime's task capture).
 */
export async function baselineHandle(
  context: CaptureContext,
  options: ExecCaptureOptions = {},
  skipped: readonly SkippedPath[] = [],
): Promise<ExecHandle | null> {
  checkCaptureContext(context);
  const rootsKey = rootsKeyOf(context.workspace);
  const state = await loadScanState(context.store, context.blobs, context.sessionId, rootsKey);
  if (state === null) return null;
  const before: ScanResult = {
    snapshot: state.snapshot,
    skipped: [...skipped],
    complete: state.complete,
    cache: state.cache,
    stats: { files: state.snapshot.size, directories: 0, hashed: 0, hashedBytes: 0, cacheHits: 0, durationMs: 0 },
  };
  return {
    context,
    options,
    before,
    external: null,
    state,
    rootsKey,
    pinDelta: state.pinDelta,
    storeWatch: StoreWatch.take(context.workspace, context.store.location),
    inFlight: null,
    recovered: [],
  };
}
