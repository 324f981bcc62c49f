import { createHash } from 'node:crypto';
import { lstatSync, type Dirent } from 'node:fs';
import { TEMP_FILE_PATTERN } from './atomic-write.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { hashContent } from '../model/index.js';
import { DirectoryCache, type DirectoryListing } from './dir-cache.js';
import { IGNORE_FILE_NAMES } from './ignore-rules.js';
import { mayHoldInvalidNames, rawEntrySignature, separateInvalidNames, unescapeName, type RawNameEntry } from './raw-names.js';
import { STAT_FIELDS, STAT_MISSING } from './lstat-pool.js';
import type { ScanIgnores } from './scan-ignores.js';
import { modeOf, nodeScanIo, S_IFLNK, S_IFMT, S_IFREG, statTable, type ScanIo, type ScanStats } from './scan-io.js';
import type { ScanOptions } from './scanner.js';
import type { SkippedPath, Snapshot, SnapshotEntry } from './snapshot.js';
import { StatCache, type StatCacheState } from './stat-cache.js';
import type { Workspace } from './workspace.js';
import type { WorkspacePath } from './workspace-path.js';

export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 100_000;

/** The paths of one directory's tracked files, built once per listing object and reused. */
export interface DirectoryFiles {
  readonly absolute: string;
  readonly keyPrefix: string;
  readonly keys: readonly string[];
  readonly paths: readonly string[];
}

/** The flat file lists of a scan. */
interface FileLists {
  readonly directories: readonly DirectoryFiles[];
  readonly keys: readonly string[];
  readonly paths: readonly string[];
}

/** What a scan keeps for the next scan that is handed its state. */
interface ScanMemo {
  readonly lists: FileLists;
  /** The state's entries in `lists` order (undefined where none), so matching needs no lookups. */
  readonly entries: readonly (SnapshotEntry | undefined)[];
  /** How many entries the state's record holds. */
  readonly entryCount: number;
}

// In-memory companions of cache states and listings (never persisted): when the next scan gets the
// state object this process built, unchanged directories reuse their path strings, and an
// unchanged tree reuses the whole path list (the lstat workers then already hold it).
const filesOfListing = new WeakMap<DirectoryListing, DirectoryFiles>();
const memoOfState = new WeakMap<StatCacheState, ScanMemo>();

/**
 * One scan's walk: lists directories (reusing unchanged listings), then stats every file and
 * records it from the stat cache or reads and hashes it. Used whole by a full scan, and directory by
 * directory by an incremental one (`incremental-scan.ts`).
 */
export class Walker {
  readonly snapshot: Snapshot;
  /** The ignore decisions each directory was entered with, by directory key. */
  readonly dirRules = new Map<WorkspacePath, ScanIgnores>();
  readonly skipped: SkippedPath[] = [];
  readonly listings: Record<WorkspacePath, DirectoryListing> = {};
  readonly exclusionsKey: string;
  complete = true;
  files = 0;
  directories = 0;
  directoriesRead = 0;
  hashed = 0;
  hashedBytes = 0;
  cacheHits = 0;

  private readonly io: ScanIo;
  private readonly cache: StatCache;
  private readonly directoryCache: DirectoryCache;
  private readonly maxFileSize: number;
  readonly maxFiles: number;
  private readonly reportIgnored: boolean;
  private readonly onContent: ScanOptions['onContent'];
  private readonly excludeInodes: ScanOptions['excludeInodes'];
  private readonly excludedNames: ReadonlySet<string>;
  private readonly skipDirs: ReadonlySet<string>;
  /** The directories whose files were queued by {@link walkFrom}, in walk order. */
  readonly directoryFiles: DirectoryFiles[] = [];
  private fileLists: FileLists | undefined;
  private entriesInOrder: (SnapshotEntry | undefined)[] = [];
  private entryCount = 0;

  /** `snapshot`: the map to record into; `knownListings`: the cache state's listings as a map (see `DirectoryCache`). */
  constructor(workspace: Workspace, options: ScanOptions, snapshot: Snapshot = new Map(), knownListings?: ReadonlyMap<WorkspacePath, DirectoryListing>) {
    this.snapshot = snapshot;
    this.io = { ...nodeScanIo, ...options.io };
    this.cache = new StatCache(options.cache);
    this.maxFileSize = options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
    this.maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    this.reportIgnored = options.reportIgnored ?? true;
    this.onContent = options.onContent;
    this.excludeInodes = options.excludeInodes !== undefined && options.excludeInodes.size > 0 ? options.excludeInodes : undefined;
    this.excludedNames = workspace.exclusions.names;
    // Other roots nested in this one are scanned as themselves (when tracked) or not at all.
    this.skipDirs = new Set([...workspace.exclusions.dirs, ...workspace.roots.map((root) => root.realDir)]);
    this.exclusionsKey = createHash('sha256')
      .update(JSON.stringify([[...this.excludedNames].sort(), [...this.skipDirs].sort()]))
      .digest('base64url');
    this.directoryCache = new DirectoryCache(this.cache.directories, this.exclusionsKey, this.cache.racyBeforeMs, knownListings);
  }

  /** Lists directory `relative` of a root and everything below it; false when the file cap was reached. */
  walkFrom(prefix: string, absolute: string, relative: string, rules: ScanIgnores): boolean {
    const stack: { absolute: string; relative: string; rules: ScanIgnores }[] = [{ absolute, relative, rules }];
    while (stack.length > 0) {
      const next = stack.pop()!;
      const visited = this.visitDirectory(prefix, next.absolute, next.relative, next.rules);
      if (visited === null) continue;
      const { listing } = visited;
      const childPrefix = next.relative === '' ? '' : `${next.relative}/`;
      if (listing.files.length > 0 && !this.addFiles(listing, next.absolute, prefix + childPrefix, prefix)) return false;
      for (let index = listing.dirs.length - 1; index >= 0; index--) {
        const name = listing.dirs[index]!;
        stack.push({ absolute: `${next.absolute}/${name}`, relative: childPrefix + name, rules: visited.rules.child(name, listing) });
      }
    }
    return true;
  }

  /**
   * Reads one directory: its stat, then its listing (the cached one when it still holds), classified
   * under `parentRules` and the directory's own ignore files; reports what it passes over. Null when
   * it is gone, not a directory, unreadable or a store directory (reported).
   */
  visitDirectory(prefix: string, absolute: string, relative: string, parentRules: ScanIgnores): { listing: DirectoryListing; rules: ScanIgnores } | null {
    const key = prefix + relative;
    // The directory's stat is taken before it is listed: a change after that shows in the next scan.
    let signature: ScanStats;
    try {
      signature = this.io.lstat(absolute);
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT', 'ENOTDIR')) this.skipped.push({ path: key, reason: 'unreadable', detail: errorReason(error) });
      return null;
    }
    if (!signature.isDirectory()) return null; // replaced by a file mid-scan: the parent's next listing has it
    if (this.excludeInodes !== undefined && relative !== '' && this.isStoreFile(absolute, signature.ino)) {
      this.skipped.push({ path: key, reason: 'store_file', detail: 'a directory of Waypoint’s own store, found here: never taken as workspace files' });
      return null;
    }
    let listing = this.directoryCache.lookup(key, signature);
    let rules = parentRules;
    if (listing !== null) {
      rules = parentRules.withDirectory(relative, absolute, listing.ignoreFiles ?? []);
      if (listing.rules !== rules.key || !rules.listingHolds(listing, relative)) listing = null;
    }
    if (listing === null) {
      let entries: Dirent[];
      try {
        entries = this.io.readdir(absolute);
      } catch (error) {
        if (!hasErrorCode(error, 'ENOENT', 'ENOTDIR')) this.skipped.push({ path: key, reason: 'unreadable', detail: errorReason(error) });
        return null;
      }
      this.directoriesRead++;
      let invalid: RawNameEntry[] = [];
      if (mayHoldInvalidNames(entries)) ({ valid: entries, invalid } = separateInvalidNames(absolute, entries));
      const ignoreFiles = entries.filter((entry) => IGNORE_FILE_NAMES.includes(entry.name) && !entry.isDirectory()).map((entry) => entry.name);
      rules = parentRules.withDirectory(relative, absolute, ignoreFiles);
      listing = this.classify(absolute, relative, entries, rules, signature);
      for (const entry of invalid) {
        // Ignore rules see the name as Node decodes it (bad bytes as U+FFFD).
        const lossy = unescapeName(entry.name).toString('utf8');
        if (rules.ignoresEntry(relative === '' ? lossy : `${relative}/${lossy}`, entry.isDirectory, listing, entry.name))
          (listing.ignored ??= []).push(entry.name);
        else (listing.invalid ??= []).push(entry.name);
      }
      if (ignoreFiles.length > 0) listing.ignoreFiles = ignoreFiles;
    }
    this.directories++;
    this.listings[key] = listing;
    this.dirRules.set(key, parentRules);
    const childPrefix = relative === '' ? '' : `${relative}/`;
    if (listing.ignored !== undefined && this.reportIgnored) {
      for (const name of listing.ignored) this.skipped.push({ path: prefix + childPrefix + name, reason: 'ignored' });
    }
    if (listing.special !== undefined) {
      for (const name of listing.special) this.skipped.push({ path: prefix + childPrefix + name, reason: 'not_regular' });
    }
    if (listing.invalid !== undefined) {
      for (const name of listing.invalid) {
        const stat = rawEntrySignature(absolute, name);
        if (stat === null) continue;
        const what = stat.startsWith('dir:') ? 'a directory (not descended)' : 'a file';
        this.skipped.push({
          path: prefix + childPrefix + name,
          reason: 'invalid_name',
          detail: `${what} whose name is not valid UTF-8 (shown escaped): its content cannot be checkpointed`,
          signature: stat,
        });
      }
    }
    return { listing, rules };
  }

  /** Sorts a fresh directory listing into what to track, descend, report, or pass over. */
  private classify(absolute: string, relative: string, entries: Dirent[], rules: ScanIgnores, signature: ScanStats): DirectoryListing {
    const listing: DirectoryListing = {
      mtimeMs: signature.mtimeMs,
      ctimeMs: signature.ctimeMs,
      ino: signature.ino,
      rules: rules.key,
      files: [],
      dirs: [],
    };
    for (const entry of entries) {
      const name = entry.name;
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      if (entry.isDirectory()) {
        if (this.excludedNames.has(name) || this.skipDirs.has(`${absolute}/${name}`)) continue;
        if (rules.ignoresEntry(childRelative, true, listing, name)) (listing.ignored ??= []).push(name);
        else listing.dirs.push(name);
      } else if (rules.ignoresEntry(childRelative, false, listing, name)) {
        (listing.ignored ??= []).push(name);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        // An atomic write in flight (or one a crash left): not a change of the workspace's files.
        if (TEMP_FILE_PATTERN.test(name)) continue;
        listing.files.push(name);
      } else {
        (listing.special ??= []).push(name);
      }
    }
    return listing;
  }

  /** Queues a directory's files for the stat pass; false (scan incomplete) past `maxFiles`. */
  private addFiles(listing: DirectoryListing, absolute: string, keyPrefix: string, rootPrefix: string): boolean {
    let files = filesOfListing.get(listing);
    if (files === undefined || files.absolute !== absolute || files.keyPrefix !== keyPrefix) {
      files = {
        absolute,
        keyPrefix,
        keys: listing.files.map((name) => keyPrefix + name),
        paths: listing.files.map((name) => `${absolute}/${name}`),
      };
      filesOfListing.set(listing, files);
    }
    const room = this.maxFiles - this.files;
    if (files.keys.length <= room) {
      this.files += files.keys.length;
      this.directoryFiles.push(files);
      return true;
    }
    this.files = this.maxFiles;
    this.directoryFiles.push({ ...files, keys: files.keys.slice(0, room), paths: files.paths.slice(0, room) });
    this.complete = false;
    this.skipped.push({
      path: rootPrefix,
      reason: 'too_many_files',
      detail: `stopped after ${this.maxFiles} files; raise maxFiles or add a .waypointignore`,
    });
    return false;
  }

  /** Stats every queued file, then records it from the cache or reads and hashes it. */
  visitFiles(previous: StatCacheState | null | undefined): void {
    const memo = previous ? memoOfState.get(previous) : undefined;
    const lists = this.flatten(memo?.lists);
    const { keys, paths } = lists;
    const previousEntries = memo !== undefined && memo.lists === lists ? memo.entries : undefined;
    const entries: (SnapshotEntry | undefined)[] = (this.entriesInOrder = new Array(keys.length));
    const table = statTable(this.io, paths);
    for (let index = 0; index < keys.length; index++) {
      const offset = index * STAT_FIELDS;
      let mode = table[offset]!;
      if (mode < 0) {
        if (mode === STAT_MISSING) continue; // vanished since it was listed: it is simply not there now
        const stats = this.restat(keys[index]!, paths[index]!);
        if (stats === null) continue;
        mode = table[offset] = stats.mode;
        table[offset + 1] = stats.size;
        table[offset + 2] = stats.mtimeMs;
        table[offset + 3] = stats.ctimeMs;
        table[offset + 4] = stats.ino;
      }
      const entry = this.recordFile(
        keys[index]!,
        paths[index]!,
        mode,
        table[offset + 1]!,
        table[offset + 2]!,
        table[offset + 3]!,
        table[offset + 4]!,
        previousEntries,
        index,
      );
      if (entry !== undefined) entries[index] = entry;
    }
    this.entryCount = this.cacheHits + this.hashed;
  }

  /**
   * Records one file from its stat fields: from the stat cache (the previous scan's entry when
   * `previousEntries` holds them in path order, else by key) or read and hashed. Returns the entry
   * the next scan may trust (undefined: none), and leaves the file out when it is no longer a file
   * or symlink.
   */
  recordFile(
    key: WorkspacePath,
    path: string,
    mode: number,
    size: number,
    mtimeMs: number,
    ctimeMs: number,
    ino: number,
    previousEntries?: readonly (SnapshotEntry | undefined)[],
    index = 0,
  ): SnapshotEntry | undefined {
    const type = mode & S_IFMT;
    const kind = type === S_IFREG ? 'file' : type === S_IFLNK ? 'symlink' : undefined;
    if (kind === undefined) return undefined; // replaced by a directory or special file since it was listed
    const permissions = mode & 0o7777;
    if (this.excludeInodes !== undefined && this.isStoreFile(path, ino)) {
      this.skipped.push({ path: key, reason: 'store_file', detail: 'one of Waypoint’s own store files, found here: never taken as a workspace change' });
      return undefined;
    }
    if (kind === 'file' && size > this.maxFileSize) {
      this.snapshot.set(key, { kind, hash: null, size, mode: permissions, mtimeMs, ctimeMs, ino });
      this.skipped.push({ path: key, reason: 'too_large', size, detail: `larger than maxFileSize (${this.maxFileSize} bytes)` });
      return undefined;
    }
    const cached =
      previousEntries !== undefined
        ? this.cache.matchEntry(previousEntries[index], kind, size, permissions, mtimeMs, ctimeMs, ino)
        : this.cache.match(key, kind, size, permissions, mtimeMs, ctimeMs, ino);
    if (cached !== null) {
      this.cacheHits++;
      this.snapshot.set(key, cached);
      return cached;
    }
    const entry: SnapshotEntry = { kind, hash: null, size, mode: permissions, mtimeMs, ctimeMs, ino };
    this.readFile(key, path, entry);
    if (entry.hash === null) return undefined;
    this.hashed++;
    return entry;
  }

  /**
   * The new state's record: the previous one itself when every entry it holds was confirmed and
   * nothing else was hashed (then the two are equal), else built from the snapshot.
   */
  entryRecord(previous: StatCacheState | null | undefined): Record<WorkspacePath, SnapshotEntry> {
    const memo = previous ? memoOfState.get(previous) : undefined;
    if (previous && memo !== undefined && this.hashed === 0 && this.cacheHits === memo.entryCount) return previous.entries;
    const record: Record<WorkspacePath, SnapshotEntry> = {};
    for (const [key, entry] of this.snapshot) if (entry.hash !== null) record[key] = entry;
    return record;
  }

  /** Keeps this scan's file lists and entries for the next scan that is handed `state`. */
  remember(state: StatCacheState): void {
    if (this.fileLists === undefined || !this.complete) return;
    memoOfState.set(state, { lists: this.fileLists, entries: this.entriesInOrder, entryCount: this.entryCount });
  }

  private flatten(last: FileLists | undefined): FileLists {
    const directories = this.directoryFiles;
    if (last !== undefined && last.directories.length === directories.length && directories.every((files, index) => files === last.directories[index])) {
      this.fileLists = last;
      return last;
    }
    const keys: string[] = [];
    const paths: string[] = [];
    for (const files of directories) {
      for (let index = 0; index < files.keys.length; index++) {
        keys.push(files.keys[index]!);
        paths.push(files.paths[index]!);
      }
    }
    this.fileLists = { directories, keys, paths };
    return this.fileLists;
  }

  private isStoreFile(path: string, ino: number): boolean {
    const device = this.excludeInodes!.get(ino);
    if (device === undefined) return false;
    try {
      return lstatSync(path).dev === device;
    } catch {
      return false;
    }
  }

  /** lstat of one file through the scan's `io` (again, when a stat table's failed): null when it is gone, or unreadable (reported). */
  restat(key: WorkspacePath, path: string): { mode: number; size: number; mtimeMs: number; ctimeMs: number; ino: number } | null {
    let stats: ScanStats;
    try {
      stats = this.io.lstat(path);
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) this.skipped.push({ path: key, reason: 'unreadable', detail: errorReason(error) });
      return null;
    }
    return { mode: modeOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
  }

  private readFile(key: WorkspacePath, absolute: string, entry: SnapshotEntry): void {
    let content: Buffer;
    try {
      content = entry.kind === 'symlink' ? Buffer.from(this.io.readlink(absolute)) : this.io.readFile(absolute);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return;
      this.snapshot.set(key, entry);
      this.skipped.push({ path: key, reason: 'unreadable', size: entry.size, detail: errorReason(error) });
      return;
    }
    entry.hash = hashContent(content);
    // A size that disagrees with the stat means the file changed while read: recording the read
    // size makes the entry's signature stale, so the next scan reads it again.
    entry.size = content.length;
    this.hashedBytes += content.length;
    this.snapshot.set(key, entry);
    this.onContent?.(key, content, entry.hash);
  }
}
