import { isDirectoryCacheState, type DirectoryCacheState } from './dir-cache.js';
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
 * whose signature changed and re-lists only directories that changed. The checkpoint layer
 * persists it between scans. Treat it as an immutable value: build a new one, never edit one in
 * place.
 *
 * Shape (version 1):
 * ```
 * { version: 1, scanStartedAtMs, racyWindowMs,
 *   entries: { "<root>:<path>": SnapshotEntry, … },          // files with a known hash
 *   directories?: { exclusions: "<fingerprint>",            // optional: absent = list everything
 *                   listings: { "<root>:" | "<root>:<dir>": DirectoryListing, … } } }
 * ```
 */
export interface StatCacheState {
  version: 1;
  /** Wall-clock time (ms) the scan that produced these entries started. */
  scanStartedAtMs: number;
  /** Timestamp granularity allowance used for the racy check, in ms. */
  racyWindowMs: number;
  entries: Record<WorkspacePath, SnapshotEntry>;
  /** Directory listings for the next scan to reuse (see {@link DirectoryCache}); optional. */
  directories?: DirectoryCacheState;
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
  /** Entries (and directory listings) with an mtime at or after this are racy, not trusted. */
  readonly racyBeforeMs: number;
  /** The state's directory listings, when it is usable and has them. */
  readonly directories: DirectoryCacheState | undefined;
  private readonly entries: Record<WorkspacePath, SnapshotEntry>;

  constructor(state?: StatCacheState | null) {
    const usable = isStatCacheState(state) ? state : undefined;
    this.entries = usable?.entries ?? {};
    this.directories = usable?.directories;
    this.racyBeforeMs = usable ? usable.scanStartedAtMs - usable.racyWindowMs : Number.NEGATIVE_INFINITY;
  }

  /** The cached hash when `signature` matches the cached one and the entry is not racy; else null. */
  lookup(key: WorkspacePath, kind: SnapshotEntry['kind'], signature: StatSignature): string | null {
    return this.match(key, kind, signature.size, signature.mode & 0o7777, signature.mtimeMs, signature.ctimeMs, signature.ino)?.hash ?? null;
  }

  /**
   * {@link lookup} for the scanner's hot loop: stat fields as numbers (`mode` already masked to
   * permission bits), and the cached entry itself, which then equals the entry the scan would build.
   */
  match(key: WorkspacePath, kind: SnapshotEntry['kind'], size: number, mode: number, mtimeMs: number, ctimeMs: number, ino: number): SnapshotEntry | null {
    return this.matchEntry(this.entries[key], kind, size, mode, mtimeMs, ctimeMs, ino);
  }

  /**
   * {@link match} against an entry the caller already looked up in this state (the scanner keeps
   * the previous scan's entries in path order, so an unchanged tree costs no lookups by key).
   */
  matchEntry(
    entry: SnapshotEntry | undefined,
    kind: SnapshotEntry['kind'],
    size: number,
    mode: number,
    mtimeMs: number,
    ctimeMs: number,
    ino: number,
  ): SnapshotEntry | null {
    if (
      entry === undefined ||
      entry.hash === null ||
      entry.kind !== kind ||
      entry.size !== size ||
      entry.mtimeMs !== mtimeMs ||
      entry.ctimeMs !== ctimeMs ||
      entry.ino !== ino ||
      entry.mode !== mode ||
      entry.mtimeMs >= this.racyBeforeMs
    ) {
      return null;
    }
    return entry;
  }

  /** Whether an entry's hash cannot be trusted because it may predate a same-tick modification. */
  isRacy(entry: Pick<SnapshotEntry, 'mtimeMs'>): boolean {
    return entry.mtimeMs >= this.racyBeforeMs;
  }
}

// States built by createStatCacheState: already well-formed, so the deep check is skipped for them.
const builtStates = new WeakSet<object>();

/** Builds the cache state a scan hands back (entries with a known hash only). */
export function createStatCacheState(
  entries: Iterable<[WorkspacePath, SnapshotEntry]>,
  scanStartedAtMs: number,
  racyWindowMs: number,
  directories?: DirectoryCacheState,
): StatCacheState {
  const record: Record<WorkspacePath, SnapshotEntry> = {};
  for (const [key, entry] of entries) if (entry.hash !== null) record[key] = entry;
  return createStatCacheStateFromRecord(record, scanStartedAtMs, racyWindowMs, directories);
}

/**
 * {@link createStatCacheState} around a record that already holds only hashed entries; the record
 * is used as is, so a scan that found nothing changed can share the previous state's record.
 */
export function createStatCacheStateFromRecord(
  record: Record<WorkspacePath, SnapshotEntry>,
  scanStartedAtMs: number,
  racyWindowMs: number,
  directories?: DirectoryCacheState,
): StatCacheState {
  const state: StatCacheState = { version: 1, scanStartedAtMs, racyWindowMs, entries: record };
  if (directories !== undefined) state.directories = directories;
  builtStates.add(state);
  return state;
}

/**
 * {@link createStatCacheState} whose `entries` record is built from `snapshot` when first read
 * (an enumerable property like any other: JSON, spreads and copies see the record). An incremental
 * scan hands this back, so a scan that changed a few entries of a large tree does not copy them
 * all; the next incremental scan never reads it.
 */
export function createStatCacheStateFromSnapshot(
  snapshot: ReadonlyMap<WorkspacePath, SnapshotEntry>,
  scanStartedAtMs: number,
  racyWindowMs: number,
  directories?: DirectoryCacheState,
): StatCacheState {
  const state = { version: 1, scanStartedAtMs, racyWindowMs } as StatCacheState;
  Object.defineProperty(state, 'entries', {
    enumerable: true,
    configurable: true,
    get() {
      const record: Record<WorkspacePath, SnapshotEntry> = {};
      for (const [key, entry] of snapshot) if (entry.hash !== null) record[key] = entry;
      Object.defineProperty(state, 'entries', { value: record, enumerable: true, configurable: true, writable: true });
      return record;
    },
  });
  if (directories !== undefined) state.directories = directories;
  builtStates.add(state);
  return state;
}

/**
 * Whether a value (e.g. parsed from JSON) is a usable {@link StatCacheState}: every entry and
 * directory listing well-formed. A malformed state is not trusted at all (the scan then reads
 * everything), rather than trusting the parts that look right.
 */
export function isStatCacheState(value: unknown): value is StatCacheState {
  if (!value || typeof value !== 'object') return false;
  if (builtStates.has(value)) return true;
  const state = value as Partial<StatCacheState>;
  if (
    state.version !== 1 ||
    typeof state.scanStartedAtMs !== 'number' ||
    typeof state.racyWindowMs !== 'number' ||
    !state.entries ||
    typeof state.entries !== 'object' ||
    Array.isArray(state.entries)
  ) {
    return false;
  }
  for (const key in state.entries) if (!isSnapshotEntry(state.entries[key])) return false;
  return state.directories === undefined || isDirectoryCacheState(state.directories);
}

function isSnapshotEntry(value: unknown): value is SnapshotEntry {
  if (!value || typeof value !== 'object') return false;
  const entry = value as Partial<SnapshotEntry>;
  return (
    (entry.kind === 'file' || entry.kind === 'symlink') &&
    (entry.hash === null || typeof entry.hash === 'string') &&
    typeof entry.size === 'number' &&
    typeof entry.mode === 'number' &&
    typeof entry.mtimeMs === 'number' &&
    typeof entry.ctimeMs === 'number' &&
    typeof entry.ino === 'number'
  );
}
