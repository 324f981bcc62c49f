import { closeSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Workspace } from '../workspace/index.js';
import type { UncoveredPath } from './exec-capture.js';

/** One of the store's files or directories as it was before a command. */
interface StoreEntry {
  path: string;
  dev: number;
  ino: number;
  directory: boolean;
}

/**
 * What a capture knows of the store's own files around a shell command, when they lie in the
 * workspace: their identities before it, so the scans pass over them wherever the command put them
 * (a moved store is never recorded as the workspace's files) and the capture can say when the
 * command deleted, moved or replaced them, or broke the database header. The runtime runs commands
 * with these files read-only (see `shellInvocation`); this is what a caller of `captureExec` that
 * runs its own commands gets.
 */
export class StoreWatch {
  private constructor(
    private readonly entries: readonly StoreEntry[],
    private readonly database: string | null,
    /** Inode → device of every store file seen, for the scanner to pass over. */
    readonly inodes: ReadonlyMap<number, number>,
  ) {}

  /** Takes the identities of the workspace's protected paths that lie in its roots (none: an empty watch). */
  static take(workspace: Workspace, databaseLocation: string): StoreWatch {
    const inRoots = workspace.protectedPathsInRoots();
    if (inRoots.length === 0) return new StoreWatch([], null, new Map());
    let databasePath = databaseLocation;
    try {
      databasePath = realpathSync.native(databaseLocation);
    } catch {
      // not there (yet): compared as given
    }
    const entries: StoreEntry[] = [];
    const inodes = new Map<number, number>();
    const add = (path: string): StoreEntry | null => {
      try {
        const stats = lstatSync(path);
        inodes.set(stats.ino, stats.dev);
        return { path, dev: stats.dev, ino: stats.ino, directory: stats.isDirectory() };
      } catch {
        return null;
      }
    };
    for (const path of inRoots) {
      const entry = add(path);
      if (entry === null) continue;
      entries.push(entry);
      if (!entry.directory) continue;
      // One level down (the database, its WAL, the pack directory …); packs come from the pack directory's own entry.
      let names: string[] = [];
      try {
        names = readdirSync(path);
      } catch {
        continue;
      }
      for (const name of names) {
        const child = add(join(path, name));
        if (child?.directory) for (const pack of safeList(child.path)) add(join(child.path, pack));
      }
    }
    const database = inRoots.some((path) => databasePath === path || databasePath.startsWith(`${path}/`)) ? databasePath : null;
    return new StoreWatch(entries, database, inodes);
  }

  /** Store paths the command deleted, moved, replaced or (the database) overwrote, as uncovered entries. */
  changes(): UncoveredPath[] {
    const found: UncoveredPath[] = [];
    for (const entry of this.entries) {
      // A directory reported gone stands for everything in it.
      if (found.some((item) => entry.path.startsWith(`${item.path}/`))) continue;
      let stats;
      try {
        stats = lstatSync(entry.path);
      } catch {
        found.push({ path: entry.path, reason: 'store_touched', detail: 'one of Waypoint’s own store files was deleted or moved by the command' });
        continue;
      }
      if (stats.ino !== entry.ino || stats.dev !== entry.dev) {
        found.push({ path: entry.path, reason: 'store_touched', detail: 'one of Waypoint’s own store files was replaced by the command' });
      }
    }
    const database = this.database;
    if (database !== null && !found.some((item) => item.path === database || database.startsWith(`${item.path}/`)) && !hasSqliteHeader(database)) {
      found.push({ path: database, reason: 'store_touched', detail: 'the store database was overwritten by the command' });
    }
    return found;
  }
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function hasSqliteHeader(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\u0000';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
