import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../model/index.js';

/** Lock attempts of this process, naming each one's pid file. */
let attempts = 0;

/**
 * A lock between processes on one path: a file holding the holder's pid, made by a hard link from
 * a file already written (atomic, and never seen empty). A holder that died (its pid is gone) is
 * taken over: its lock is renamed away first, which only one contender can do, and put back if
 * what was renamed is not the lock judged stale (a live holder's, made since), so two never both
 * take it. Waits up to `timeoutMs`, then `HOOK_LOCK_BUSY`. A directory at the path holding a `pid`
 * file (the lock of earlier versions) excludes as well and is taken over the same way.
 *
 * A file, not a directory: on ext4 removing a directory just made waits for the journal, up to
 * milliseconds on a busy disk, and every hook event takes this lock.
 */
export async function withPathLock<T>(path: string, timeoutMs: number, body: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  // Named for this call: calls in one process may wait for the same lock at once.
  const written = `${path}.${process.pid}-${++attempts}`;
  writeFileSync(written, String(process.pid));
  for (;;) {
    try {
      linkSync(written, path);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        unlinkSync(written);
        throw error;
      }
    }
    const stale = staleLock(path);
    if (stale !== undefined) {
      takeOver(path, stale);
      continue;
    }
    if (Date.now() > deadline) {
      unlinkSync(written);
      throw new ConflictError({ code: 'HOOK_LOCK_BUSY', message: `Another Waypoint hook process still holds ${path}.`, details: { path } });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
  unlinkSync(written);
  try {
    return await body();
  } finally {
    rmSync(path, { force: true });
  }
}

/**
 * Moves a dead holder's lock (`staleInode`) aside. Between judging it stale and the rename another
 * contender may have taken it over and a live holder made a new lock at the path: the rename then
 * moved that one, so it is put back (a link, which fails rather than replace a lock made since).
 */
function takeOver(path: string, staleInode: number): void {
  const aside = `${path}.stale-${process.pid}-${++attempts}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // Another contender took it over first.
  }
  if (statSync(aside).ino === staleInode) {
    rmSync(aside, { recursive: true, force: true });
    return;
  }
  try {
    if (statSync(aside).isDirectory()) renameSync(aside, path);
    else linkSync(aside, path);
  } catch {
    // A lock was made at the path since: the moved one's holder will find its own lock gone.
  }
  rmSync(aside, { recursive: true, force: true });
}

/** The inode of the lock at `path` when its holder's pid is gone, else undefined. */
function staleLock(path: string): number | undefined {
  let pid: number;
  let inode: number;
  try {
    const lock = readLock(path);
    pid = lock.pid;
    inode = lock.inode;
  } catch {
    // Gone since, or an earlier version's lock directory made but not yet written: not stale.
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? inode : undefined;
  }
}

/** The pid in the lock file (or an earlier version's lock directory) and the inode it was read from. */
function readLock(path: string): { pid: number; inode: number } {
  const fd = openSync(path, 'r');
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { pid: Number(readFileSync(join(path, 'pid'), 'utf8')), inode: stat.ino };
    const buffer = Buffer.alloc(32);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return { pid: Number(buffer.toString('utf8', 0, length)), inode: stat.ino };
  } finally {
    closeSync(fd);
  }
}
