import { createStatCacheState, type Snapshot, type SnapshotEntry, type StatCacheState, type Workspace } from '../workspace/index.js';
import type { BlobStore } from '../blobs/index.js';
import type { Store } from '../store/store.js';

/** Entry type that points at a session's latest exec scan state. */
export const EXEC_SCAN_ENTRY = 'exec-scan';

/**
 * What the exec capture remembers between commands, per session and set of tracked roots: every
 * file the last scan saw (too-large and unreadable ones with `hash: null`) and when that scan
 * started (for the stat cache's racy-mtime rule).
 *
 * Persistence: the state is a JSON blob (delta-encoded against the previous state, so a scan that
 * changed a few files costs a few hundred bytes); an `exec-scan` entry `{ stateHash, rootsKey,
 * files, complete }` names the latest one. Pins keep it and every snapshot blob alive through GC:
 * owner `session:<id>:exec-state` (the state blob) and `session:<id>:exec-files` (the snapshot's
 * hashes, re-pinned only when they changed). Both go with the session when it is deleted.
 */
export interface ExecScanState {
  version: 1;
  rootsKey: string;
  complete: boolean;
  scanStartedAtMs: number;
  racyWindowMs: number;
  entries: Record<string, SnapshotEntry>;
}

export interface LoadedScanState {
  state: ExecScanState;
  stateHash: string;
  snapshot: Snapshot;
  cache: StatCacheState;
}

/** Identifies the tracked roots a state was taken over; a state for other roots is not used. */
export function rootsKeyOf(workspace: Workspace): string {
  return workspace
    .trackedRoots()
    .map((root) => `${root.name}=${root.realDir}`)
    .join('\n');
}

export function filesPinOwner(sessionId: string): string {
  return `session:${sessionId}:exec-files`;
}

export function statePinOwner(sessionId: string): string {
  return `session:${sessionId}:exec-state`;
}

/** Per-process memo of parsed states by blob hash: the next command need not re-read the blob. */
const parsed = new Map<string, LoadedScanState>();

/** The latest persisted state of this session for these roots, or null (first scan). */
export async function loadScanState(store: Store, blobs: BlobStore, sessionId: string, rootsKey: string): Promise<LoadedScanState | null> {
  const [entry] = await store.listEntries(sessionId, { type: EXEC_SCAN_ENTRY, last: 1 });
  const stateHash = entry?.data.stateHash;
  if (typeof stateHash !== 'string' || entry?.data.rootsKey !== rootsKey) return null;
  const memo = parsed.get(stateHash);
  if (memo) return memo;
  let state: ExecScanState;
  try {
    state = JSON.parse((await blobs.get(stateHash)).toString('utf8')) as ExecScanState;
  } catch {
    // A lost or unreadable state only costs a full scan: the next scan starts from nothing.
    return null;
  }
  if (state.version !== 1 || state.rootsKey !== rootsKey) return null;
  return remember(stateHash, state);
}

/** Stores a state blob, pins it, and appends the entry naming it. */
export async function saveScanState(
  store: Store,
  blobs: BlobStore,
  sessionId: string,
  state: ExecScanState,
  previousHash: string | null,
): Promise<LoadedScanState> {
  const json = Buffer.from(JSON.stringify(state));
  const stateHash = await blobs.put(json, previousHash ? { baseHash: previousHash } : {});
  await store.setBlobPins(statePinOwner(sessionId), [stateHash]);
  await store.appendEntry(sessionId, {
    type: EXEC_SCAN_ENTRY,
    data: { stateHash, rootsKey: state.rootsKey, files: Object.keys(state.entries).length, complete: state.complete },
  });
  return remember(stateHash, state);
}

export function stateFromSnapshot(rootsKey: string, snapshot: Snapshot, cache: StatCacheState, complete: boolean): ExecScanState {
  return { version: 1, rootsKey, complete, scanStartedAtMs: cache.scanStartedAtMs, racyWindowMs: cache.racyWindowMs, entries: Object.fromEntries(snapshot) };
}

function remember(stateHash: string, state: ExecScanState): LoadedScanState {
  const snapshot: Snapshot = new Map(Object.entries(state.entries));
  const loaded = { state, stateHash, snapshot, cache: createStatCacheState(snapshot, state.scanStartedAtMs, state.racyWindowMs) };
  if (parsed.size > 16) parsed.clear();
  parsed.set(stateHash, loaded);
  return loaded;
}
