import { createStatCacheState, pathsThatMayDiffer, type Snapshot, type SnapshotEntry, type StatCacheState, type Workspace } from '../workspace/index.js';
import type { BlobInput, BlobStore } from '../blobs/index.js';
import type { Store } from '../store/store.js';
import { hashContent } from '../model/index.js';

/** Entry type that points at a session's latest exec scan state. */
export const EXEC_SCAN_ENTRY = 'exec-scan';

/** A state blob amends at most this many earlier ones before a whole state is written again. */
const MAX_STATE_CHAIN = 32;
/** Hashes pinned incrementally before the whole snapshot is pinned again. */
const MAX_PIN_DELTA = 4096;

/**
 * What the exec capture remembers between commands, per session and set of tracked roots: every
 * file the last scan saw (too-large and unreadable ones with `hash: null`) and when that scan
 * started (for the stat cache's racy-mtime rule).
 *
 * Persistence: a JSON blob per saved scan. It is either whole (`base: null`) or amends the state
 * `base` with the entries that changed and the paths that went away, so a scan that changed five
 * files stores a few hundred bytes, not the whole workspace listing; every 32 amendments (or when
 * an amendment would be large) a whole state is written. An `exec-scan` entry
 * `{ stateHash, rootsKey, files, complete }` names the latest one.
 *
 * Pins keep the states and every snapshot blob alive through GC: owner `session:<id>:exec-state`
 * (the state chain), `session:<id>:exec-files` (the whole snapshot's hashes, written on the first
 * scan and again when the increments grow large) and `session:<id>:exec-files-delta` (hashes the
 * snapshot gained since). Their union covers the current snapshot. All go with the session.
 */
export interface ExecScanStateBlob {
  version: 1;
  rootsKey: string;
  complete: boolean;
  scanStartedAtMs: number;
  racyWindowMs: number;
  base: string | null;
  depth: number;
  entries: Record<string, SnapshotEntry>;
  removed: string[];
  /** Hashes pinned under the delta owner when this state was saved. */
  pinDelta: string[];
  /** The state blobs this one needs (itself and its bases), pinned together. */
  chain: string[];
  /**
   * The scan cache's other fields (the scanner's directory listings …), kept as the scanner made
   * them, in whole states only: a cold load of an amended state rebuilds the file entries and
   * leaves the rest out (the scanner then lists every directory, which is slower, never wrong).
   */
  cacheExtras?: Record<string, unknown>;
}

export type ExecScanState = ExecScanStateBlob;

export interface LoadedScanState {
  stateHash: string;
  rootsKey: string;
  depth: number;
  chain: string[];
  snapshot: Snapshot;
  cache: StatCacheState;
  complete: boolean;
  pinDelta: string[];
  /** The state blob's stored bytes, when at hand: the next state's delta base without a read back (and a decompress) from storage. */
  bytes?: Buffer;
}

/** Identifies the tracked roots a state was taken over; a state for other roots is not used. */
export function rootsKeyOf(workspace: Workspace): string {
  return workspace
    .trackedRoots()
    .map((root) => `${root.name}=${root.realDir}`)
    .join('\n');
}

export const filesPinOwner = (sessionId: string) => `session:${sessionId}:exec-files`;
export const filesDeltaPinOwner = (sessionId: string) => `session:${sessionId}:exec-files-delta`;
export const statePinOwner = (sessionId: string) => `session:${sessionId}:exec-state`;

/** Per-process memo of states by blob hash: the next command need not re-read and re-parse them. */
const MEMO_STATES = 8;
const memo = new Map<string, LoadedScanState>();

/** The latest persisted state of this session for these roots, or null (first scan). */
export async function loadScanState(store: Store, blobs: BlobStore, sessionId: string, rootsKey: string): Promise<LoadedScanState | null> {
  const [entry] = await store.listEntries(sessionId, { type: EXEC_SCAN_ENTRY, last: 1 });
  const stateHash = entry?.data.stateHash;
  if (typeof stateHash !== 'string' || entry?.data.rootsKey !== rootsKey) return null;
  try {
    return await loadChain(blobs, stateHash, rootsKey);
  } catch {
    // A lost or unreadable state only costs a full scan: the next scan starts from nothing.
    return null;
  }
}

/** The snapshot of the persisted state `stateHash` (null: unreadable or of other roots). */
export async function loadStateSnapshot(blobs: BlobStore, stateHash: string, rootsKey: string): Promise<Snapshot | null> {
  try {
    return (await loadChain(blobs, stateHash, rootsKey))?.snapshot ?? null;
  } catch {
    return null;
  }
}

async function loadChain(blobs: BlobStore, stateHash: string, rootsKey: string): Promise<LoadedScanState | null> {
  const known = memo.get(stateHash);
  if (known) return known;
  // Walk back to a whole state (or a memoized one), then replay the amendments onto one map.
  const amendments: ExecScanStateBlob[] = [];
  let start: Snapshot | null = null;
  let topBytes: Buffer | undefined;
  for (let hash: string | null = stateHash; hash !== null; ) {
    const memoized = memo.get(hash);
    if (memoized) {
      start = new Map(memoized.snapshot);
      break;
    }
    const stored = await blobs.get(hash);
    topBytes ??= stored;
    const blob = JSON.parse(stored.toString('utf8')) as ExecScanStateBlob;
    if (blob.version !== 1 || blob.rootsKey !== rootsKey || amendments.length > MAX_STATE_CHAIN + 1) return null;
    amendments.push(blob);
    hash = blob.base;
  }
  const snapshot: Snapshot = start ?? new Map();
  for (const blob of amendments.reverse()) {
    for (const path of blob.removed) snapshot.delete(path);
    for (const [path, entry] of Object.entries(blob.entries)) snapshot.set(path, entry);
  }
  return remember(stateHash, amendments.at(-1)!, snapshot, undefined, topBytes);
}

/** How {@link saveScanState} stores the state blob, and what it runs before the state becomes the session's. */
export interface SaveScanStateOptions {
  /**
   * Stores the state blob (and its delta base, when at hand), returning their hashes in order:
   * a caller with contents of its own to store passes a writer that appends them in the same
   * `putMany` (one fsync for both). Default: `blobs.putMany`.
   */
  writeBlobs?: (items: readonly BlobInput[]) => Promise<string[]>;
  /**
   * Runs once the state blob is durable, before its pins and the entry naming it are committed:
   * rows that must exist before the session's state moves on (the checkpoints of the changes the
   * state no longer shows as changes).
   */
  beforeEntry?: () => Promise<void>;
  /** Write a whole state, whatever the chain's depth (see {@link compactScanState}). */
  whole?: boolean;
}

/**
 * Persists the state after a scan (an amendment of `previous` when that is small), pins the state
 * chain, and appends the entry naming it.
 */
export async function saveScanState(
  store: Store,
  blobs: BlobStore,
  sessionId: string,
  previous: LoadedScanState | null,
  scan: { rootsKey: string; snapshot: Snapshot; cache: StatCacheState; complete: boolean; pinDelta: string[] },
  options: SaveScanStateOptions = {},
): Promise<LoadedScanState> {
  const changed: Record<string, SnapshotEntry> = {};
  const removed: string[] = [];
  let changes = 0;
  // A snapshot an incremental scan built from the previous one differs from it only where it re-read.
  const candidates = previous ? pathsThatMayDiffer(previous.snapshot, scan.snapshot) : null;
  if (options.whole) {
    // A whole state is written whatever changed: nothing to compare.
  } else if (previous && candidates !== null) {
    for (const path of candidates) {
      const before = previous.snapshot.get(path);
      const entry = scan.snapshot.get(path);
      if (entry === undefined) {
        if (before === undefined) continue;
        removed.push(path);
        changes++;
      } else if (!before || !sameEntry(before, entry)) {
        changed[path] = entry;
        changes++;
      }
    }
  } else if (previous) {
    for (const [path, entry] of scan.snapshot) {
      const before = previous.snapshot.get(path);
      if (!before || !sameEntry(before, entry)) {
        changed[path] = entry;
        changes++;
      }
    }
    for (const path of previous.snapshot.keys()) {
      if (!scan.snapshot.has(path)) {
        removed.push(path);
        changes++;
      }
    }
  }
  const amend = previous !== null && !options.whole && previous.depth < MAX_STATE_CHAIN && changes * 4 < scan.snapshot.size + 16;
  const blob: ExecScanStateBlob = {
    version: 1,
    rootsKey: scan.rootsKey,
    complete: scan.complete,
    scanStartedAtMs: scan.cache.scanStartedAtMs,
    racyWindowMs: scan.cache.racyWindowMs,
    base: amend ? previous.stateHash : null,
    depth: amend ? previous.depth + 1 : 0,
    entries: amend ? changed : Object.fromEntries(scan.snapshot),
    removed: amend ? removed : [],
    pinDelta: scan.pinDelta,
    chain: amend ? previous.chain : [],
    ...(amend ? {} : { cacheExtras: cacheExtrasOf(scan.cache) }),
  };
  const bytes = Buffer.from(JSON.stringify(blob));
  // Pinned before it is stored and until the state's own pin names it: a GC in any process in between keeps it.
  const pin = await blobs.pin([hashContent(bytes)], { sessionId });
  let stateHash: string;
  try {
    // A delta against the previous state of its kind: an amendment against the previous one (the
    // pin delta and chain lists grow by a few hashes a scan), a whole state against the previous
    // whole state (most files are unchanged); each costs its changes, not a copy.
    // The first amendment of a whole state stands alone: a few KB taken as a delta of the whole
    // state's MB would make every later amendment whose delta line reaches back to it decode and
    // index that MB (the amendments' numbered deltas return to their line's first version).
    const base = previous === null ? undefined : amend ? (previous.depth === 0 ? undefined : previous.stateHash) : previous.chain[0];
    // The previous state's bytes, when this process has them, serve as the base as they are.
    const baseBytes = amend ? previous.bytes : undefined;
    const items: BlobInput[] =
      baseBytes !== undefined && base !== undefined
        ? [
            { content: baseBytes, hash: base, verified: true },
            { content: bytes, baseHash: base },
          ]
        : [{ content: bytes, ...(base === undefined ? {} : { baseHash: base }) }];
    stateHash = (await (options.writeBlobs ?? ((inputs) => blobs.putMany(inputs)))(items)).at(-1)!;
    await options.beforeEntry?.();
    blob.chain = [...blob.chain, stateHash];
    await store.setBlobPins(statePinOwner(sessionId), blob.chain);
  } finally {
    await pin.release();
  }
  await store.appendEntry(sessionId, {
    type: EXEC_SCAN_ENTRY,
    data: { stateHash, rootsKey: scan.rootsKey, files: scan.snapshot.size, complete: scan.complete },
  });
  // In-process the next scan gets the cache exactly as the scanner made it.
  return remember(stateHash, blob, scan.snapshot, scan.cache, bytes);
}

/** A chain this deep is rewritten whole by {@link compactScanState}, before an event's save would have to. */
const COMPACT_AFTER = 24;

/**
 * Rewrites the session's latest scan state whole when its chain of amendments grew long, so the
 * save of a later event need not (an event's save writes a whole state once the chain reaches 32:
 * tens of ms for 10k files). For a caller with time after an event: the resident hook helper, once
 * it has answered, under the session's lock. The state stays the same (same entries, same scan
 * start); a kill before its entry leaves the amended one, as good. Returns true when it wrote one.
 */
export async function compactScanState(store: Store, blobs: BlobStore, sessionId: string): Promise<boolean> {
  const [entry] = await store.listEntries(sessionId, { type: EXEC_SCAN_ENTRY, last: 1 });
  const rootsKey = entry?.data.rootsKey;
  if (typeof rootsKey !== 'string') return false;
  const state = await loadScanState(store, blobs, sessionId, rootsKey);
  if (state === null || state.depth < COMPACT_AFTER) return false;
  await saveScanState(
    store,
    blobs,
    sessionId,
    state,
    { rootsKey, snapshot: state.snapshot, cache: state.cache, complete: state.complete, pinDelta: state.pinDelta },
    { whole: true },
  );
  return true;
}

function cacheExtrasOf(cache: StatCacheState): Record<string, unknown> {
  const { entries: _entries, version: _version, scanStartedAtMs: _started, racyWindowMs: _racy, ...extras } = cache;
  return extras;
}

/**
 * Keeps every hash of `snapshot` pinned: the first time (or when the increments grew large) by
 * pinning the whole snapshot, otherwise by adding the hashes it gained to the small delta pin.
 * Returns the delta pinned now.
 */
export async function pinSnapshot(
  store: Store,
  sessionId: string,
  snapshot: Snapshot,
  previousDelta: readonly string[] | null,
  gained: readonly string[],
): Promise<string[]> {
  if (previousDelta !== null) {
    const delta = new Set(previousDelta);
    for (const hash of gained) delta.add(hash);
    if (delta.size <= MAX_PIN_DELTA) {
      // Added, never replaced: a capture of the same session in another process may have pinned
      // hashes this one's state does not know of, and its snapshot still needs them.
      if (delta.size !== previousDelta.length) await store.addBlobPins(filesDeltaPinOwner(sessionId), [...gained]);
      return [...delta];
    }
  }
  const hashes = new Set<string>();
  for (const entry of snapshot.values()) if (entry.hash !== null) hashes.add(entry.hash);
  await store.setBlobPins(filesPinOwner(sessionId), [...hashes]);
  if (previousDelta === null || previousDelta.length > 0) await store.setBlobPins(filesDeltaPinOwner(sessionId), []);
  return [];
}

function sameEntry(a: SnapshotEntry, b: SnapshotEntry): boolean {
  return (
    a.hash === b.hash && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.mode === b.mode && a.kind === b.kind
  );
}

function remember(stateHash: string, blob: ExecScanStateBlob, snapshot: Snapshot, cache?: StatCacheState, bytes?: Buffer): LoadedScanState {
  const loaded: LoadedScanState = {
    stateHash,
    rootsKey: blob.rootsKey,
    depth: blob.depth,
    chain: blob.chain.includes(stateHash) ? blob.chain : [...blob.chain, stateHash],
    snapshot,
    cache: cache ?? { ...createStatCacheState(snapshot, blob.scanStartedAtMs, blob.racyWindowMs), ...(blob.base === null ? blob.cacheExtras : {}) },
    complete: blob.complete,
    pinDelta: blob.pinDelta,
    ...(bytes === undefined ? {} : { bytes }),
  };
  // A state of a 50k-file workspace is a few MB in memory: keep only the most recent few.
  memo.delete(stateHash);
  memo.set(stateHash, loaded);
  while (memo.size > MEMO_STATES) memo.delete(memo.keys().next().value!);
  return loaded;
}

/** Forgets the per-process memo, so the next load reads the persisted blobs (tests of cold starts). */
export function clearScanStateMemo(): void {
  memo.clear();
}
