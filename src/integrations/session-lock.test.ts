import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
  it('processes racing for a dead holder’s lock take turns: never two inside at once (random pauses, seed printed)', async () => {
    const seed = Number(process.env.WAYPOINT_SEED ?? Date.now() % 100_000);
    console.log(`path lock race seed ${seed}`);
    mkdirSync(join(dir, 'locks'));
    writeFileSync(path, String(deadPid()));
    const log = join(dir, 'log');
    const worker = join(dir, 'worker.mts');
    writeFileSync(
      worker,
      `import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { withPathLock } from ${JSON.stringify(resolve('src/integrations/session-lock.ts'))};
let state = Number(process.argv[2]);
const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
for (let round = 0; round < 15; round++) {
  await withPathLock(process.argv[3], 30_000, async () => {
    appendFileSync(process.argv[4], 'in ' + process.pid + '\\n');
    await sleep(random() * 3);
    appendFileSync(process.argv[4], 'out ' + process.pid + '\\n');
  });
  await sleep(random() * 2);
}
`,
    );
    const exits = await Promise.all(
      [1, 2, 3, 4].map(
        (index) =>
          new Promise<number | null>((done) => {
            const child = spawn(process.execPath, ['--import', 'tsx', worker, String(seed * 7 + index), path, log], { stdio: 'inherit' });
            child.on('exit', (code) => done(code));
          }),
      ),
    );
    expect(exits).toEqual([0, 0, 0, 0]);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4 * 15 * 2);
    for (let at = 0; at < lines.length; at += 2) {
      const pid = lines[at]!.slice(3);
      expect([lines[at], lines[at + 1]]).toEqual([`in ${pid}`, `out ${pid}`]);
    }
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });
});
