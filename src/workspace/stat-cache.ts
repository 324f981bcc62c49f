import type { SnapshotEntry } from './snapshot.js';
import type { WorkspacePath } from './workspace-path.js';

/** The stat fields a cached hash is trusted by. */
export interface StatSignature {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Permission bits. */
  mode: number;
}

/**
 * Serializable stat cache (plain JSON): what a scan saw, so the next scan re-hashes only files
 * whose signature changed. The checkpoint layer persists it between scans.
 */
export interface StatCacheState {
  version: 1;
  /** Wall-clock time (ms) the scan that produced these entries started. */
  scanStartedAtMs: number;
  /** Timestamp granularity allowance used for the racy check, in ms. */
  racyWindowMs: number;
  entries: Record<WorkspacePath, SnapshotEntry>;
}

/**
 * Default racy window: covers coarse filesystem timestamps (FAT: 2 s; HFS+, some network mounts:
 * 1 s) and the kernel's coarse clock lagging `Date.now()`.
 */
export const DEFAULT_RACY_WINDOW_MS = 2000;

/**
 * Looks up cached hashes by stat signature, with git's racy-mtime rule: an entry whose mtime is
 * not strictly older than the start of the scan that recorded it (less the racy window) may have
 * been modified again within the same timestamp tick after it was hashed, so its hash is not
 * trusted and the file is read again.
 *
 * @example
 * const cache = new StatCache(previous.cache)
 * const hash = cache.lookup('workspace:a.ts', 'file', lstatSync(path)) ?? hashContent(readFileSync(path))
 */
export class StatCache {
  private readonly entries: Record<WorkspacePath, SnapshotEntry>;
  private readonly racyBeforeMs: number;

  constructor(state?: StatCacheState | null) {
    const usable = isStatCacheState(state) ? state : undefined;
    this.entries = usable?.entries ?? {};
    this.racyBeforeMs = usable ? usable.scanStartedAtMs - usable.racyWindowMs : Number.NEGATIVE_INFINITY;
  }

  /** The cached hash when `signature` matches the cached one and the entry is not racy; else null. */
  lookup(key: WorkspacePath, kind: SnapshotEntry['kind'], signature: StatSignature): string | null {
    const entry = this.entries[key];
    if (entry === undefined || entry.hash === null || entry.kind !== kind) return null;
    if (
      entry.size !== signature.size ||
      entry.mtimeMs !== signature.mtimeMs ||
      entry.ctimeMs !== signature.ctimeMs ||
      entry.ino !== signature.ino ||
      entry.mode !== (signature.mode & 0o7777)
    ) {
      return null;
    }
    return this.isRacy(entry) ? null : entry.hash;
  }

  /** Whether an entry's hash cannot be trusted because it may predate a same-tick modification. */
  isRacy(entry: Pick<SnapshotEntry, 'mtimeMs'>): boolean {
    return entry.mtimeMs >= this.racyBeforeMs;
  }
}

/** Builds the cache state a scan hands back (entries with a known hash only). */
export function createStatCacheState(
  entries: Iterable<[WorkspacePath, SnapshotEntry]>,
  scanStartedAtMs: number,
  racyWindowMs: number,
): StatCacheState {
  const record: Record<WorkspacePath, SnapshotEntry> = {};
  for (const [key, entry] of entries) if (entry.hash !== null) record[key] = entry;
  return { version: 1, scanStartedAtMs, racyWindowMs, entries: record };
}

/** Whether a value (e.g. parsed from JSON) is a usable {@link StatCacheState}. */
export function isStatCacheState(value: unknown): value is StatCacheState {
  if (!value || typeof value !== 'object') return false;
  const state = value as Partial<StatCacheState>;
  return (
    state.version === 1 &&
    typeof state.scanStartedAtMs === 'number' &&
    typeof state.racyWindowMs === 'number' &&
    !!state.entries &&
    typeof state.entries === 'object'
  );
}
