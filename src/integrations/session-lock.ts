import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../model/index.js';

/** Lock attempts of this process, naming each one's pid file. */
let attempts = 0;

/**
 * A lock between processes on one path: a file holding the holder's pid, made by a hard link from
 * a file already written (atomic, and never seen empty). A holder that died (its pid is gone) is
 * taken over: its lock is renamed away first, which only one contender can do, so two never both
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
    if (holderIsGone(path)) {
      const aside = `${path}.stale-${process.pid}-${Date.now()}`;
      try {
        renameSync(path, aside);
        rmSync(aside, { recursive: true, force: true });
      } catch {
        // Another contender took it over first.
      }
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

function holderIsGone(path: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EISDIR') return false;
    try {
      pid = Number(readFileSync(join(path, 'pid'), 'utf8'));
    } catch {
      // An earlier version's lock directory made but not yet written: a holder that is starting.
      return false;
    }
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
