// No engine imports: the hook client loads this.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The resident helper's endpoint file (its port and tokens) and lock, beside the store (`claude-hooks/`). */
export function helperPaths(storePath: string): { endpoint: string; lock: string } {
  const dir = join(dirname(storePath), 'claude-hooks');
  return { endpoint: join(dir, 'helper.port'), lock: join(dir, 'helper.lock') };
}

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
