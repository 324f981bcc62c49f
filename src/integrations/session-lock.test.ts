import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaypointError } from '../model/index.js';
import { withPathLock } from './session-lock.js';

/** A pid no process has any more: a real child that ran and exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('path lock', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-lock-'));
    path = join(dir, 'locks', 'session.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holders in one process take turns, and leave nothing behind', async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        withPathLock(path, 10_000, async () => {
          inside++;
          most = Math.max(most, inside);
          await sleep(5);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });

  it('takes over the lock of a holder that died, in this version’s form and an earlier version’s directory', async () => {
    mkdirSync(join(dir, 'locks'));
    writeFileSync(path, String(deadPid()));
    expect(await withPathLock(path, 5_000, async () => 'first')).toBe('first');
    mkdirSync(path);
    writeFileSync(join(path, 'pid'), String(deadPid()));
    expect(await withPathLock(path, 5_000, async () => 'second')).toBe('second');
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });

  it('a live holder’s lock, in either form, is waited for, then HOOK_LOCK_BUSY; the waiter leaves nothing behind', async () => {
    mkdirSync(join(dir, 'locks'));
    writeFileSync(path, String(process.ppid));
    const busy = await withPathLock(path, 50, async () => 'ran').catch((error: unknown) => error);
    expect(WaypointError.is(busy) && busy.code).toBe('HOOK_LOCK_BUSY');
    rmSync(path);
    mkdirSync(path);
    writeFileSync(join(path, 'pid'), String(process.ppid));
    const busyDirectory = await withPathLock(path, 50, async () => 'ran').catch((error: unknown) => error);
    expect(WaypointError.is(busyDirectory) && busyDirectory.code).toBe('HOOK_LOCK_BUSY');
    expect(existsSync(join(path, 'pid'))).toBe(true);
    expect(readdirSync(join(dir, 'locks'))).toEqual(['session.lock']);
  });
});
