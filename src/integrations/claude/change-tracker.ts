import { lstatSync, readdirSync, readFileSync, watch, type Dirent, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { ScanChanges, ScanIo } from '../../workspace/index.js';

export interface ChangeTrackerOptions {
  /**
   * Change events between two scans from which the kernel's event queue may have overflowed (its
   * overflow notice never reaches Node, so it is inferred from the count): the next scan is then a
   * full one. Default: a quarter of `/proc/sys/fs/inotify/max_queued_events` (16384 → 4096).
   */
  overflowAt?: number;
  /** At most this many directories are watched; the ones past it are read in full by every scan. Default 100,000. */
  maxWatches?: number;
  /** Replaces `fs.watch` (tests). */
  watch?: (path: string, listener: (type: string, name: string | null) => void) => FSWatcher;
}

/** What the tracker holds, for tests and diagnostics. */
export interface ChangeTrackerCounts {
  watched: number;
  stats: number;
  listings: number;
  /** Full resets so far (overflow, a watcher error), and why the last one happened. */
  resets: number;
  lastReset: string | null;
}

/** A mark in the journal: valid while no reset happened since. */
interface JournalMark {
  readonly tracker: ChangeTracker;
  readonly epoch: number;
  readonly position: number;
}

/** Past this many journal entries everything is dropped (a reset): no mark can ask for that many. */
const MAX_JOURNAL = 1_000_000;

/**
 * Change tracking for the resident hook helper's workspace scans: a scan's filesystem calls
 * (`lstat`, `readdir`) answered from memory for every path no change event has touched since it
 * was last read, so a scan before or after a tool call costs the paths that changed, not the
 * whole tree. Pass {@link io} as the scanner's `io`; call {@link settle} before each scan.
 *
 * What may be answered from memory, and why it is never stale:
 * - a directory is watched (one non-recursive `fs.watch`, inotify on Linux) *before* its stat or
 *   listing is read and kept, so any change after that read raises an event for it;
 * - a file's stat is kept only while its directory is watched, and never for a file with other
 *   hard links (a write through another name raises no event here);
 * - an event drops the named entry's stat, its directory's stat and listing; a directory renamed,
 *   deleted or replaced (or a name the event cannot give) drops everything kept below it and its
 *   watchers, which would otherwise report under the old path;
 * - a directory that cannot be watched (permissions, the watch limit) keeps nothing: it and what
 *   is below it are read in full each time;
 * - a watcher error, or as many events between two scans as could have overflowed the kernel's
 *   queue, drops everything: the next scan is a full one. A new helper starts empty (full scan).
 * Not seen by inotify, hence not here: writes through a shared `mmap`, and network file systems.
 */
export class ChangeTracker {
  /**
   * The scanner's `io`: `lstat` and `readdir` from memory where nothing changed, and the journal of
   * what changed (`changes`), so a scan handed the previous scan's cache re-reads only that.
   */
  readonly io: Pick<ScanIo, 'lstat' | 'readdir' | 'changes'>;
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly stats = new Map<string, Stats>();
  private readonly listings = new Map<string, Dirent[]>();
  private readonly unwatchable = new Set<string>();
  /**
   * What changed, in order: a path (its stat or listing) or, marked by a leading NUL (no path holds
   * one), a directory below which anything may have changed. Dropped at each reset (a new epoch).
   */
  private journal: string[] = [];
  private epoch = 0;
  /** Paths nothing is kept of (hard-linked files, unwatched directories: their subtrees): every scan reads them. */
  private readonly volatile = new Set<string>();
  private readonly volatileTrees = new Set<string>();
  private readonly overflowAt: number;
  private readonly maxWatches: number;
  private readonly watchFn: NonNullable<ChangeTrackerOptions['watch']>;
  private events = 0;
  private saturated = false;
  private resets = 0;
  private lastReset: string | null = null;
  private closed = false;

  constructor(options: ChangeTrackerOptions = {}) {
    this.overflowAt = options.overflowAt ?? Math.max(64, Math.floor(maxQueuedEvents() / 4));
    this.maxWatches = options.maxWatches ?? 100_000;
    this.watchFn = options.watch ?? ((path, listener) => watch(path, { persistent: false }, listener));
    this.io = {
      lstat: (path) => this.lstat(path),
      readdir: (path) => this.readdir(path),
      changes: { mark: () => this.mark(), since: (mark) => this.since(mark) },
    };
  }

  /**
   * Call before each scan: lets every change event the kernel queued so far reach the watchers
   * (they are delivered by the event loop, which a synchronous scan does not turn), then drops
   * everything if so many arrived that some may have been lost.
   */
  async settle(): Promise<void> {
    for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.events >= this.overflowAt) this.reset(`${this.events} change events since the last scan: the kernel's queue may have overflowed`);
    this.events = 0;
  }

  /** Drops every watcher and everything kept: the next scan reads the whole tree. */
  reset(reason: string): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.stats.clear();
    this.listings.clear();
    this.unwatchable.clear();
    this.journal = [];
    this.epoch++;
    this.volatile.clear();
    this.volatileTrees.clear();
    this.saturated = false;
    this.events = 0;
    this.resets++;
    this.lastReset = reason;
  }

  close(): void {
    this.reset('closed');
    this.closed = true;
  }

  counts(): ChangeTrackerCounts {
    return { watched: this.watchers.size, stats: this.stats.size, listings: this.listings.size, resets: this.resets, lastReset: this.lastReset };
  }

  /** A mark of this instant in the journal. */
  mark(): unknown {
    return { tracker: this, epoch: this.epoch, position: this.journal.length } satisfies JournalMark;
  }

  /** What changed after `mark` (see {@link ScanChanges}), or null when a reset happened since (or it is not this tracker's). */
  since(mark: unknown): ScanChanges | null {
    const known = mark as Partial<JournalMark> | null;
    if (known === null || typeof known !== 'object' || known.tracker !== this || known.epoch !== this.epoch || this.closed) return null;
    const paths = new Set(this.volatile);
    const subtrees = new Set(this.volatileTrees);
    for (let index = known.position!; index < this.journal.length; index++) {
      const entry = this.journal[index]!;
      if (entry.charCodeAt(0) === 0) subtrees.add(entry.slice(1));
      else paths.add(entry);
    }
    return { paths, subtrees };
  }

  private note(entry: string): void {
    if (this.journal.length >= MAX_JOURNAL) this.reset('the change journal grew past its limit');
    this.journal.push(entry);
  }

  private lstat(path: string): Stats {
    const kept = this.stats.get(path);
    if (kept !== undefined) return kept;
    let stats = lstatSync(path);
    if (stats.isDirectory()) {
      if (this.watchers.has(path)) this.stats.set(path, stats);
      else if (this.watchDirectory(path)) {
        // Read again now that changes raise events: the first read may predate the watch.
        stats = lstatSync(path);
        if (stats.isDirectory()) this.stats.set(path, stats);
      } else this.volatileTrees.add(path);
    } else if (this.watchers.has(dirname(path)) && !(stats.isFile() && stats.nlink > 1)) {
      this.stats.set(path, stats);
    } else {
      this.volatile.add(path);
    }
    return stats;
  }

  private readdir(path: string): Dirent[] {
    const kept = this.listings.get(path);
    if (kept !== undefined) return kept.slice();
    const watched = this.watchDirectory(path);
    const entries = readdirSync(path, { withFileTypes: true });
    if (watched) this.listings.set(path, entries);
    else this.volatileTrees.add(path);
    return entries.slice();
  }

  /** Watches `path` (true), or leaves it unwatched (false): nothing of it is then kept. */
  private watchDirectory(path: string): boolean {
    if (this.watchers.has(path)) return true;
    if (this.closed || this.saturated || this.unwatchable.has(path) || this.watchers.size >= this.maxWatches) return false;
    let watcher: FSWatcher;
    try {
      watcher = this.watchFn(path, (type, name) => this.onEvent(path, type, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EMFILE') this.saturated = true;
      else this.unwatchable.add(path);
      return false;
    }
    watcher.on('error', () => this.reset(`the watcher of ${path} failed`));
    this.watchers.set(path, watcher);
    return true;
  }

  private onEvent(dir: string, type: string, name: string | Buffer | null): void {
    this.events++;
    this.stats.delete(dir);
    this.listings.delete(dir);
    this.note(dir);
    const entry = typeof name === 'string' ? name : null;
    if (entry === null || entry === '' || entry.includes('/') || entry.includes('\uFFFD')) {
      // Which entry changed is unknown (or its name is not exact): nothing below this directory is trusted.
      this.dropBelow(dir, false);
      return;
    }
    const path = `${dir}/${entry}`;
    this.stats.delete(path);
    this.note(path);
    if (type !== 'rename') return;
    // A directory created, deleted, moved or replaced: its watchers now watch something else.
    if (this.watchers.has(path)) this.dropBelow(path, true);
    // The watched directory itself deleted or moved is reported under its own name.
    if (entry === basename(dir)) this.dropBelow(dir, true);
  }

  /** Forgets everything kept below `path` (and `path` itself when `inclusive`), closing those watchers. */
  private dropBelow(path: string, inclusive: boolean): void {
    this.note(`\0${path}`);
    const prefix = `${path}/`;
    const below = (key: string) => key.startsWith(prefix) || (inclusive && key === path);
    for (const [dir, watcher] of this.watchers) {
      if (!below(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    for (const key of this.stats.keys()) if (below(key)) this.stats.delete(key);
    for (const key of this.listings.keys()) if (below(key)) this.listings.delete(key);
    this.stats.delete(path);
    this.listings.delete(path);
  }
}

function maxQueuedEvents(): number {
  try {
    const value = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isFinite(value) && value > 0 ? value : 16_384;
  } catch {
    return 16_384;
  }
}
