// No engine imports: the hook client loads this.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The resident helper's socket and lock, beside the store (`claude-hooks/`). */
export function helperPaths(storePath: string): { socket: string; lock: string } {
  const dir = join(dirname(storePath), 'claude-hooks');
  return { socket: join(dir, 'helper.sock'), lock: join(dir, 'helper.lock') };
}

/** Unix socket paths are limited (108 bytes on Linux, 104 on macOS): longer ones go without a helper. */
export const MAX_SOCKET_PATH = 100;

/** How long the helper waits for a next event before it stops (ms). */
export function helperIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.WAYPOINT_HOOK_HELPER_IDLE_MS);
  return Number.isFinite(value) && value > 0 ? value : 10 * 60_000;
}

/** True when the helper lock names a live process: a start then has nothing to do (checked before the engine is loaded). */
export function helperRunning(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(join(lock, 'pid'), 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}
