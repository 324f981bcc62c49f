import type { ScanIo } from './scan-io.js';
import { rememberScan, scanIncrementally, scanRoots } from './incremental-scan.js';
import { ScanIgnores } from './scan-ignores.js';
import { Walker } from './scan-walker.js';
import type { SkippedPath, Snapshot } from './snapshot.js';
import { createStatCacheStateFromRecord, DEFAULT_RACY_WINDOW_MS, type StatCacheState } from './stat-cache.js';
import type { Workspace } from './workspace.js';
import type { WorkspacePath } from './workspace-path.js';

export { DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_FILES } from './scan-walker.js';

export interface ScanOptions {
  /** The previous scan's `cache`: files whose stat signature is unchanged are not read again. */
  cache?: StatCacheState | null;
  /** Files above this many bytes are listed as `too_large` and not read. Default 10 MiB. */
  maxFileSize?: number;
  /** Stop after this many files and report `too_many_files` (`complete: false`). Default 100,000. */
  maxFiles?: number;
  /** See {@link DEFAULT_RACY_WINDOW_MS}. */
  racyWindowMs?: number;
  /** Report each ignored file or top-level ignored directory in `skipped`. Default true. */
  reportIgnored?: boolean;
  /** Names of tracked roots to scan. Default: every tracked root. */
  roots?: readonly string[];
  /**
   * Called with the bytes of every file (or link text) the scan read and hashed, so a caller that
   * stores blobs need not read them again. Files served from the stat cache are not read and not
   * passed. The buffer is the caller's to keep.
   */
  onContent?: (path: WorkspacePath, content: Buffer, hash: string) => void;
  /** Filesystem calls; tests inject wrappers. Default: synchronous node:fs. */
  io?: Partial<ScanIo>;
  /**
   * Files and directories never taken as the workspace's, wherever they are found, by inode →
   * device: Waypoint's own store files, which a command may have moved into the tree (a directory
   * among them is not descended). Listed as `store_file`.
   */
  excludeInodes?: ReadonlyMap<number, number>;
}

/** What a scan saw. */
export interface ScanResult {
  /** Every tracked file and symlink (too-large and unreadable files with `hash: null`). */
  snapshot: Snapshot;
  /** What the scan could not cover, with reasons. */
  skipped: SkippedPath[];
  /** False when `maxFiles` cut the scan short: missing paths then do not mean deleted files. */
  complete: boolean;
  /** Pass as `options.cache` to the next scan; plain JSON, safe to persist. */
  cache: StatCacheState;
  stats: {
    files: number;
    directories: number;
    /** Files read and hashed (the rest came from the stat cache or were skipped). */
    hashed: number;
    hashedBytes: number;
    cacheHits: number;
    /** Directories read with `readdir` (the rest reused the cached listing). */
    directoriesRead?: number;
    durationMs: number;
    /** True when only what changed since the previous scan was read (see `incremental-scan.ts`). */
    incremental?: boolean;
  };
}

/**
 * Scans the tracked roots of a workspace: every file and symlink not excluded (`.git`, the store's
 * directory, other roots nested inside) or ignored (git's rules: `.gitignore` / `.waypointignore` at
 * any depth, `.git/info/exclude`, `core.excludesFile`; a path in git's index is never ignored),
 * with its sha256, mode and stat signature. With `options.cache` only files whose
 * (size, mtime, ctime, inode, mode) changed — or whose cached entry is racy — are read again, and
 * only directories whose (mtime, ctime, inode) changed, whose listing is racy, or whose ignore rules
 * changed are listed again; every file is still `lstat`ed (spread over worker threads in large
 * trees). Symlinks are recorded, never followed.
 *
 * @example
 * const before = scanWorkspace(workspace, { cache, onContent: (path, bytes, hash) => blobs.put(hash, bytes) })
 * await runShellCommand()
 * const after = scanWorkspace(workspace, { cache: before.cache })
 * const changes = diffSnapshots(before.snapshot, after.snapshot)
 */
export function scanWorkspace(workspace: Workspace, options: ScanOptions = {}): ScanResult {
  const startedAtMs = Date.now();
  const started = process.hrtime.bigint();
  const racyWindowMs = options.racyWindowMs ?? DEFAULT_RACY_WINDOW_MS;
  const incremental = scanIncrementally(workspace, options, startedAtMs, racyWindowMs);
  if (incremental !== null) return incremental;
  // Taken before anything is read: whatever changes from here on, the next scan hears of.
  const mark = options.io?.changes?.mark();
  const roots = scanRoots(workspace, options);
  const walker = new Walker(workspace, options);
  for (const root of roots) {
    if (!walker.walkFrom(root.prefix, root.realDir, '', ScanIgnores.forRoot(root.realDir))) break;
  }
  walker.visitFiles(options.cache);
  const cache = createStatCacheStateFromRecord(walker.entryRecord(options.cache), startedAtMs, racyWindowMs, {
    exclusions: walker.exclusionsKey,
    listings: walker.listings,
  });
  walker.remember(cache);
  const result: ScanResult = {
    snapshot: walker.snapshot,
    skipped: walker.skipped,
    complete: walker.complete,
    cache,
    stats: {
      files: walker.files,
      directories: walker.directories,
      hashed: walker.hashed,
      hashedBytes: walker.hashedBytes,
      cacheHits: walker.cacheHits,
      directoriesRead: walker.directoriesRead,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
    },
  };
  rememberScan(result, { options, racyWindowMs, startedAtMs, mark, exclusionsKey: walker.exclusionsKey, dirRules: walker.dirRules, roots });
  return result;
}
