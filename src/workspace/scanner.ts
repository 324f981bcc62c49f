import { errorReason, hasErrorCode } from './error-reason.js';
import { hashContent } from '../model/index.js';
import { IGNORE_FILE_NAMES, IgnoreRules } from './ignore-rules.js';
import { nodeScanIo, type ScanIo, type ScanStats } from './scan-io.js';
import type { SkippedPath, Snapshot, SnapshotEntry } from './snapshot.js';
import { createStatCacheState, DEFAULT_RACY_WINDOW_MS, StatCache, type StatCacheState } from './stat-cache.js';
import type { Workspace } from './workspace.js';
import type { WorkspacePath } from './workspace-path.js';
import type { WorkspaceRoot } from './workspace-root.js';

export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 100_000;

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
    durationMs: number;
  };
}

/**
 * Scans the tracked roots of a workspace: every file and symlink not excluded (`.git`, the store's
 * directory, other roots nested inside) or ignored (`.gitignore` / `.waypointignore` at any depth),
 * with its sha256, mode and stat signature. With `options.cache` only files whose
 * (size, mtime, ctime, inode, mode) changed — or whose cached entry is racy — are read again.
 * Symlinks are recorded, never followed.
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
  const roots = workspace
    .trackedRoots()
    .filter((root) => options.roots === undefined || options.roots.includes(root.name));
  const walker = new Walker(workspace, options);
  for (const root of roots) {
    if (!walker.walkRoot(root)) break;
  }
  return {
    snapshot: walker.snapshot,
    skipped: walker.skipped,
    complete: walker.complete,
    cache: createStatCacheState(walker.snapshot, startedAtMs, racyWindowMs),
    stats: {
      files: walker.files,
      directories: walker.directories,
      hashed: walker.hashed,
      hashedBytes: walker.hashedBytes,
      cacheHits: walker.cacheHits,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
    },
  };
}

class Walker {
  readonly snapshot: Snapshot = new Map();
  readonly skipped: SkippedPath[] = [];
  complete = true;
  files = 0;
  directories = 0;
  hashed = 0;
  hashedBytes = 0;
  cacheHits = 0;

  private readonly io: ScanIo;
  private readonly cache: StatCache;
  private readonly maxFileSize: number;
  private readonly maxFiles: number;
  private readonly reportIgnored: boolean;
  private readonly onContent: ScanOptions['onContent'];
  private readonly excludedNames: ReadonlySet<string>;
  private readonly skipDirs: ReadonlySet<string>;

  constructor(workspace: Workspace, options: ScanOptions) {
    this.io = { ...nodeScanIo, ...options.io };
    this.cache = new StatCache(options.cache);
    this.maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
    this.maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    this.reportIgnored = options.reportIgnored ?? true;
    this.onContent = options.onContent;
    this.excludedNames = workspace.exclusions.names;
    // Other roots nested in this one are scanned as themselves (when tracked) or not at all.
    this.skipDirs = new Set([...workspace.exclusions.dirs, ...workspace.roots.map((root) => root.realDir)]);
  }

  /** Walks one root; false when the file cap was reached. */
  walkRoot(root: WorkspaceRoot): boolean {
    const prefix = `${root.name}:`;
    const stack: { absolute: string; relative: string; rules: IgnoreRules }[] = [
      { absolute: root.realDir, relative: '', rules: IgnoreRules.empty() },
    ];
    while (stack.length > 0) {
      const { absolute, relative, rules: parentRules } = stack.pop()!;
      let entries;
      try {
        entries = this.io.readdir(absolute);
      } catch (error) {
        if (!hasErrorCode(error, 'ENOENT', 'ENOTDIR')) {
          this.skipped.push({ path: prefix + relative, reason: 'unreadable', detail: errorReason(error) });
        }
        continue;
      }
      this.directories++;
      const ignoreFiles = entries.filter((entry) => IGNORE_FILE_NAMES.includes(entry.name) && !entry.isDirectory()).map((entry) => entry.name);
      const rules = parentRules.withDirectory(relative, absolute, ignoreFiles);
      for (const entry of entries) {
        const name = entry.name;
        const childRelative = relative === '' ? name : `${relative}/${name}`;
        const childAbsolute = `${absolute}/${name}`;
        if (entry.isDirectory()) {
          if (this.excludedNames.has(name) || this.skipDirs.has(childAbsolute)) continue;
          if (rules.ignores(childRelative, true)) {
            if (this.reportIgnored) this.skipped.push({ path: prefix + childRelative, reason: 'ignored' });
            continue;
          }
          stack.push({ absolute: childAbsolute, relative: childRelative, rules });
          continue;
        }
        if (rules.ignores(childRelative, false)) {
          if (this.reportIgnored) this.skipped.push({ path: prefix + childRelative, reason: 'ignored' });
          continue;
        }
        if (!entry.isFile() && !entry.isSymbolicLink()) {
          this.skipped.push({ path: prefix + childRelative, reason: 'not_regular' });
          continue;
        }
        if (this.files >= this.maxFiles) {
          this.complete = false;
          this.skipped.push({
            path: prefix,
            reason: 'too_many_files',
            detail: `stopped after ${this.maxFiles} files; raise maxFiles or add a .waypointignore`,
          });
          return false;
        }
        this.files++;
        this.visitFile(prefix + childRelative, childAbsolute);
      }
    }
    return true;
  }

  private visitFile(key: WorkspacePath, absolute: string): void {
    let stats: ScanStats;
    try {
      stats = this.io.lstat(absolute);
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) this.skipped.push({ path: key, reason: 'unreadable', detail: errorReason(error) });
      return; // vanished between readdir and lstat: it is simply not there now
    }
    const kind = stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : undefined;
    if (kind === undefined) return; // replaced by a directory or special file mid-scan
    const entry: SnapshotEntry = {
      kind,
      hash: null,
      size: stats.size,
      mode: stats.mode & 0o7777,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      ino: stats.ino,
    };
    if (kind === 'file' && stats.size > this.maxFileSize) {
      this.snapshot.set(key, entry);
      this.skipped.push({ path: key, reason: 'too_large', size: stats.size, detail: `larger than maxFileSize (${this.maxFileSize} bytes)` });
      return;
    }
    const cached = this.cache.lookup(key, kind, stats);
    if (cached !== null) {
      this.cacheHits++;
      entry.hash = cached;
      this.snapshot.set(key, entry);
      return;
    }
    let content: Buffer;
    try {
      content = kind === 'symlink' ? Buffer.from(this.io.readlink(absolute)) : this.io.readFile(absolute);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return;
      this.snapshot.set(key, entry);
      this.skipped.push({ path: key, reason: 'unreadable', size: stats.size, detail: errorReason(error) });
      return;
    }
    entry.hash = hashContent(content);
    // A size that disagrees with the stat means the file changed while read: recording the read
    // size makes the entry's signature stale, so the next scan reads it again.
    entry.size = content.length;
    this.hashed++;
    this.hashedBytes += content.length;
    this.snapshot.set(key, entry);
    this.onContent?.(key, content, entry.hash);
  }
}
