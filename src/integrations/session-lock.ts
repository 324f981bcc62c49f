import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../model/index.js';

/**
 * A lock between processes on one path: a directory made with `mkdir` (atomic), holding the
 * holder's pid. A holder that died (its pid is gone) is taken over: its directory is renamed away
 * first, which only one contender can do, so two never both take it. Waits up to `timeoutMs`,
 * then `HOOK_LOCK_BUSY`.
 */
export async function withPathLock<T>(path: string, timeoutMs: number, body: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    try {
      mkdirSync(path);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
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
      throw new ConflictError({ code: 'HOOK_LOCK_BUSY', message: `Another Waypoint hook process still holds ${path}.`, details: { path } });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
  writeFileSync(join(path, 'pid'), String(process.pid));
  try {
    return await body();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}

function holderIsGone(path: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(path, 'pid'), 'utf8'));
  } catch {
    // Made but not yet written: a holder that is starting, unless the directory is old.
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
