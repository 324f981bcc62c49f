import { lazyDirectoryCacheState, type DirectoryListing } from './dir-cache.js';
import { ScanIgnores } from './scan-ignores.js';
import type { ScanChangeSource } from './scan-io.js';
import { Walker } from './scan-walker.js';
import type { ScanOptions, ScanResult } from './scanner.js';
import type { SkippedPath, Snapshot } from './snapshot.js';
import { recordDerivation } from './snapshot-derivation.js';
import { SnapshotOverlay } from './snapshot-overlay.js';
import { createStatCacheStateFromRecord, createStatCacheStateFromSnapshot, type StatCacheState } from './stat-cache.js';
import type { Workspace } from './workspace.js';
import type { WorkspacePath } from './workspace-path.js';

/** A tracked root as a scan sees it. */
interface ScanRoot {
  readonly name: string;
  readonly realDir: string;
  readonly prefix: string;
}

/**
 * What a scan made through a change source keeps (in memory, by its cache state) for the next scan
 * handed that state: the whole result, every directory's listing and the ignore decisions it was
 * entered with, and what must be read again whatever the journal says.
 */
interface ScanMemo {
  readonly source: ScanChangeSource;
  /** The source's mark taken as the scan started: everything changed after it is in the journal. */
  readonly mark: unknown;
  readonly startedAtMs: number;
  readonly optionsKey: string;
  readonly exclusionsKey: string;
  readonly roots: readonly ScanRoot[];
  readonly snapshot: Snapshot;
  readonly skipped: readonly SkippedPath[];
  readonly listings: ReadonlyMap<WorkspacePath, DirectoryListing>;
  /** Files the listings hold. */
  readonly files: number;
  readonly dirRules: ReadonlyMap<WorkspacePath, ScanIgnores>;
  /** Directories holding ignore files: read by every scan (their rules are re-read, as a full scan does). */
  readonly ignoreDirs: ReadonlySet<WorkspacePath>;
  /** Directories the next scan reads again anyway: the ignore files' and those with files skipped as unreadable, too large, store files or badly named. */
  readonly revisit: readonly WorkspacePath[];
  /** Files whose entries the next scan may not trust (the stat cache's racy rule): read again (not their directories). */
  readonly racy: readonly WorkspacePath[];
}

const memos = new WeakMap<StatCacheState, ScanMemo>();

/** Skips of these kinds are re-checked by every scan (a full scan would try again). */
const REVISITED_REASONS = new Set(['unreadable', 'too_large', 'store_file', 'invalid_name']);

/** The roots a scan covers, in order. */
export function scanRoots(workspace: Workspace, options: ScanOptions): ScanRoot[] {
  return workspace
    .trackedRoots()
    .filter((root) => options.roots === undefined || options.roots.includes(root.name))
    .map((root) => ({ name: root.name, realDir: root.realDir, prefix: `${root.name}:` }));
}

/**
 * Keeps what the next scan through the same change source needs (see {@link scanIncrementally}).
 * Only complete scans: a truncated one leaves the next scan to read everything.
 */
export function rememberScan(
  result: ScanResult,
  context: {
    options: ScanOptions;
    racyWindowMs: number;
    startedAtMs: number;
    mark: unknown;
    exclusionsKey: string;
    dirRules: ReadonlyMap<WorkspacePath, ScanIgnores>;
    roots: readonly ScanRoot[];
  },
  known?: { listings: ReadonlyMap<WorkspacePath, DirectoryListing>; files: number; ignoreDirs: ReadonlySet<WorkspacePath>; racy: readonly WorkspacePath[] },
): void {
  const source = context.options.io?.changes;
  if (source === undefined || !result.complete) return;
  let memo = known;
  if (memo === undefined) {
    const threshold = context.startedAtMs - context.racyWindowMs;
    const racy: WorkspacePath[] = [];
    for (const [key, entry] of result.snapshot) if (entry.mtimeMs >= threshold) racy.push(key);
    const listings = new Map(Object.entries(result.cache.directories?.listings ?? {}));
    const ignoreDirs = new Set<WorkspacePath>();
    let files = 0;
    for (const [key, listing] of listings) {
      files += listing.files.length;
      if (listing.ignoreFiles !== undefined) ignoreDirs.add(key);
    }
    memo = { listings, files, ignoreDirs, racy };
  }
  const revisit: WorkspacePath[] = [...memo.ignoreDirs];
  for (const item of result.skipped) if (REVISITED_REASONS.has(item.reason)) revisit.push(parentKey(context.roots, item.path));
  memos.set(result.cache, {
    source,
    mark: context.mark,
    startedAtMs: context.startedAtMs,
    optionsKey: optionsKey(context.options, context.racyWindowMs),
    exclusionsKey: context.exclusionsKey,
    roots: context.roots,
    snapshot: result.snapshot,
    skipped: result.skipped,
    listings: memo.listings,
    files: memo.files,
    dirRules: context.dirRules,
    ignoreDirs: memo.ignoreDirs,
    revisit,
    racy: memo.racy,
  });
}

/**
 * A scan that reads only what changed since the scan whose cache it is handed, when that scan went
 * through the same change source (`options.io.changes`, the resident helper's tracker): the
 * directories the journal names (and those below a directory renamed or replaced) are read again,
 * and every file in them; everything else is the previous scan's result as it was. Returns null —
 * read everything — when that cannot be told exactly: no memory of the previous scan (a new
 * process, another source), a reset of the source (overflow, a watcher error), other options or
 * exclusions, changed rules or index above the roots, a change reaching a root itself, the clock
 * gone back, or past the file cap.
 *
 * Every rule of the full scan still holds, because the same code decides: the directories read
 * again are classified by the walker under the ignore decisions they were entered with, and a
 * subdirectory whose decisions changed (an ignore file edited) is read again in full; the files
 * read again are matched against the previous entries with the stat cache's racy rule, and a file
 * whose entry was racy is read again; directories with ignore files, and skipped
 * files (unreadable, too large, store files, names that are not UTF-8), are read by every scan.
 */
export function scanIncrementally(workspace: Workspace, options: ScanOptions, startedAtMs: number, racyWindowMs: number): ScanResult | null {
  const started = process.hrtime.bigint();
  const source = options.io?.changes;
  const state = options.cache ?? null;
  const previous = state === null ? undefined : memos.get(state);
  if (source === undefined || state === null || previous === undefined || previous.source !== source) return null;
  if (startedAtMs < previous.startedAtMs || previous.optionsKey !== optionsKey(options, racyWindowMs)) return null;
  const mark = source.mark();
  const changes = source.since(previous.mark);
  if (changes === null) return null;
  const roots = scanRoots(workspace, options);
  if (
    roots.length !== previous.roots.length ||
    roots.some((root, index) => root.name !== previous.roots[index]!.name || root.realDir !== previous.roots[index]!.realDir)
  )
    return null;
  for (const root of roots) {
    const known = previous.dirRules.get(root.prefix);
    if (known === undefined || !ScanIgnores.forRoot(root.realDir).sameAs(known)) return null;
  }
  // The walker matches files against the previous entries passed to it, with the previous state's racy threshold.
  const walker = new Walker(
    workspace,
    { ...options, cache: createStatCacheStateFromRecord({}, state.scanStartedAtMs, state.racyWindowMs, state.directories) },
    SnapshotOverlay.over(previous.snapshot),
    previous.listings,
  );
  if (walker.exclusionsKey !== previous.exclusionsKey) return null;

  const byLength = [...roots].sort((a, b) => b.realDir.length - a.realDir.length);
  const locate = (absolute: string): { root: ScanRoot; key: WorkspacePath } | null => {
    for (const root of byLength) {
      if (absolute === root.realDir) return { root, key: root.prefix };
      if (absolute.startsWith(`${root.realDir}/`)) return { root, key: root.prefix + absolute.slice(root.realDir.length + 1) };
    }
    return null;
  };
  const dirty = new Set<WorkspacePath>();
  const rewalk = new Set<WorkspacePath>();
  /** Entries the journal names (their stat or content may have changed): read again wherever they are. */
  const named = new Set<WorkspacePath>();
  for (const path of changes.paths) {
    const found = locate(path);
    if (found === null) continue;
    // A directory's own events name it (its listing or stat); any other path is read with its directory.
    if (previous.listings.has(found.key)) dirty.add(found.key);
    else if (found.key !== found.root.prefix) {
      dirty.add(parentKey(roots, found.key));
      named.add(found.key);
    }
  }
  for (const path of changes.subtrees) {
    if (roots.some((root) => root.realDir === path || root.realDir.startsWith(`${path}/`))) return null;
    const found = locate(path);
    if (found === null) continue;
    rewalk.add(found.key);
    dirty.add(parentKey(roots, found.key));
  }
  for (const key of previous.revisit) dirty.add(key);

  // In a directory read again, a file keeps its previous entry unless the journal names it, the
  // racy rule distrusts it, or the previous scan has no full entry for it (new, skipped, not
  // hashed): no event since the previous scan's mark means its stat and content are as they were.
  const racyBefore = new Set(previous.racy);
  const skippedBefore = new Set(previous.skipped.map((item) => item.path));
  const mustRead = (key: WorkspacePath): boolean => {
    if (named.has(key) || racyBefore.has(key) || skippedBefore.has(key)) return true;
    const entry = previous.snapshot.get(key);
    return entry === undefined || entry.hash === null;
  };
  const snapshot = walker.snapshot;
  const listings = new Map(previous.listings);
  const ignoreDirs = new Set(previous.ignoreDirs);
  let files = previous.files;
  const dirRules = new Map(previous.dirRules);
  const touched = new Set<WorkspacePath>();
  const processed = new Set<WorkspacePath>();
  /** Directories whose subtree was dropped or read in full: their earlier skips go. */
  const dropped = new Set<WorkspacePath>();
  const toVisit: string[] = [];
  const childPrefixOf = (key: WorkspacePath) => (key.endsWith(':') ? key : `${key}/`);
  const removeSubtree = (key: WorkspacePath) => {
    dropped.add(key);
    const listing = listings.get(key);
    if (listing === undefined) return;
    listings.delete(key);
    ignoreDirs.delete(key);
    files -= listing.files.length;
    dirRules.delete(key);
    const prefix = childPrefixOf(key);
    for (const name of listing.files) {
      snapshot.delete(prefix + name);
      touched.add(prefix + name);
    }
    for (const name of listing.dirs) removeSubtree(prefix + name);
  };

  // Parents before children: a directory gone, or read in full, takes its subdirectories with it.
  for (const key of [...dirty].sort((a, b) => a.length - b.length)) {
    if (walker.listings[key] !== undefined) continue;
    const old = listings.get(key);
    const rules = dirRules.get(key);
    if (old === undefined || rules === undefined) continue;
    const root = rootOfKey(roots, key)!;
    const relative = key.slice(root.prefix.length);
    const absolute = relative === '' ? root.realDir : `${root.realDir}/${relative}`;
    processed.add(key);
    const visited = walker.visitDirectory(root.prefix, absolute, relative, rules);
    if (visited === null) {
      removeSubtree(key);
      continue;
    }
    // Counted again with the listings the walker read (merged below).
    files -= old.files.length;
    listings.delete(key);
    ignoreDirs.delete(key);
    const { listing } = visited;
    const keyPrefix = childPrefixOf(key);
    const kept = new Set(listing.files);
    for (const name of old.files) {
      if (kept.has(name)) continue;
      snapshot.delete(keyPrefix + name);
      touched.add(keyPrefix + name);
    }
    for (const name of listing.files) if (mustRead(keyPrefix + name)) toVisit.push(keyPrefix + name, `${absolute}/${name}`);
    const dirs = new Set(listing.dirs);
    for (const name of old.dirs) if (!dirs.has(name)) removeSubtree(keyPrefix + name);
    for (const name of listing.dirs) {
      const childKey = keyPrefix + name;
      const childRules = visited.rules.child(name, listing);
      if (listings.has(childKey) && !rewalk.has(childKey) && dirRules.get(childKey)?.key === childRules.key) continue;
      removeSubtree(childKey);
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      if (!walker.walkFrom(root.prefix, `${absolute}/${name}`, childRelative, childRules)) return null;
    }
  }
  for (const key in walker.listings) {
    const listing = walker.listings[key]!;
    listings.set(key, listing);
    files += listing.files.length;
    if (listing.ignoreFiles !== undefined) ignoreDirs.add(key);
  }
  for (const [key, rules] of walker.dirRules) dirRules.set(key, rules);
  if (files > walker.maxFiles) return null;

  // A racy file is read again, as a full scan handed the same cache would; its directory is not
  // (no event named it, so its listing is as it was), unless it was read again or dropped above.
  for (const key of previous.racy) {
    if (processed.has(parentKey(roots, key)) || underAny(key, dropped, childPrefixOf)) continue;
    const root = rootOfKey(roots, key)!;
    toVisit.push(key, `${root.realDir}/${key.slice(root.prefix.length)}`);
  }

  const visit = (key: WorkspacePath, path: string) => {
    snapshot.delete(key);
    touched.add(key);
    const stats = walker.restat(key, path);
    if (stats === null) return;
    walker.recordFile(key, path, stats.mode, stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino, [previous.snapshot.get(key)], 0);
  };
  for (let index = 0; index < toVisit.length; index += 2) visit(toVisit[index]!, toVisit[index + 1]!);
  for (const queued of walker.directoryFiles) for (let index = 0; index < queued.keys.length; index++) visit(queued.keys[index]!, queued.paths[index]!);

  const skipped = previous.skipped.filter((item) => !processed.has(parentKey(roots, item.path)) && !underAny(item.path, dropped, childPrefixOf));
  skipped.push(...walker.skipped);
  const threshold = startedAtMs - racyWindowMs;
  const racy: WorkspacePath[] = [];
  let reused = snapshot.size;
  for (const key of touched) {
    const entry = snapshot.get(key);
    if (entry === undefined) continue;
    reused--;
    if (entry.mtimeMs >= threshold) racy.push(key);
  }
  for (const key of previous.racy) {
    const entry = touched.has(key) ? undefined : snapshot.get(key);
    if (entry !== undefined && entry.mtimeMs >= threshold) racy.push(key);
  }
  const cache = createStatCacheStateFromSnapshot(snapshot, startedAtMs, racyWindowMs, lazyDirectoryCacheState(walker.exclusionsKey, listings));
  recordDerivation(snapshot, { base: previous.snapshot, touched });
  const result: ScanResult = {
    snapshot,
    skipped,
    complete: true,
    cache,
    stats: {
      files,
      directories: listings.size,
      hashed: walker.hashed,
      hashedBytes: walker.hashedBytes,
      cacheHits: reused + walker.cacheHits,
      directoriesRead: walker.directoriesRead,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      incremental: true,
    },
  };
  rememberScan(
    result,
    { options, racyWindowMs, startedAtMs, mark, exclusionsKey: walker.exclusionsKey, dirRules, roots },
    { listings, files, ignoreDirs, racy },
  );
  return result;
}

/** The options a memo holds for: a scan with other ones reads everything. */
function optionsKey(options: ScanOptions, racyWindowMs: number): string {
  const inodes = options.excludeInodes === undefined ? [] : [...options.excludeInodes].sort((a, b) => a[0] - b[0]);
  return JSON.stringify([options.maxFileSize ?? null, options.maxFiles ?? null, options.reportIgnored ?? true, options.roots ?? null, racyWindowMs, inodes]);
}

/** The root a key names (`<root>:<path>`). */
function rootOfKey(roots: readonly ScanRoot[], key: WorkspacePath): ScanRoot | undefined {
  let found: ScanRoot | undefined;
  for (const root of roots) if (key.startsWith(root.prefix) && (found === undefined || root.prefix.length > found.prefix.length)) found = root;
  return found;
}

/** The key of the directory holding `key` (a root's own key for its top-level entries). */
function parentKey(roots: readonly ScanRoot[], key: WorkspacePath): WorkspacePath {
  const prefix = rootOfKey(roots, key)?.prefix ?? '';
  const slash = key.lastIndexOf('/');
  return slash >= prefix.length ? key.slice(0, slash) : prefix;
}

function underAny(path: WorkspacePath, keys: ReadonlySet<WorkspacePath>, childPrefixOf: (key: WorkspacePath) => string): boolean {
  if (keys.size === 0) return false;
  if (keys.has(path)) return true;
  for (const key of keys) if (path.startsWith(childPrefixOf(key))) return true;
  return false;
}
