import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { recoverWriteIntents } from '../../src/checkpoint/index.js';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent } from '../../src/model/index.js';
import { killTrial, TrialDirs, testSeed, seededRandom } from '../fixtures/kill-trial.js';
import { personContent } from '../fixtures/tool-write-contents.js';

// A shell command killed during its capture is recorded when the store is next opened — unless its
// pid answers, which on a busy machine (pids wrap at 32768) can be another process by then: the
// capture is then left in flight, its change only pinned. A caller that knows no process of the
// store runs any more (a check after every worker is gone, an operator after a reboot) recovers with
// `includeLive`, and then the killed command's change must be recorded like any other.
const child = join(import.meta.dirname, '..', 'fixtures', 'exec-kill-child.ts');
const seed = testSeed(4747);
const dirs = new TrialDirs();
const sleepers: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const sleeper of sleepers) sleeper.kill('SIGKILL');
  dirs.cleanup();
});

describe('a shell command killed during its capture whose pid was reused', () => {
  it(`is recorded by recoverWriteIntents with includeLive (seed ${seed})`, async () => {
    const next = seededRandom(seed);
    let checked = false;
    for (let trial = 0; trial < 6 && !checked; trial++) {
      const { workdir, db } = dirs.make('waypoint-exec-reused-pid-');
      const delayMs = Math.floor(next() * 3);
      const killed = await killTrial({
        script: child,
        args: [db, workdir, String(trial)],
        when: 'landed',
        delayMs,
        group: true,
        landed: { dir: workdir, test: () => readFileSync(join(workdir, 'doc.txt')).subarray(0, 6).toString() === 'agent ' },
      });
      const where = `seed ${seed}, trial ${trial}, killed ${delayMs} ms after the command's content landed`;
      expect(killed.signal, `${where}: ${killed.stderr}`).toBe('SIGKILL');
      const rounds = [...killed.stdout.matchAll(/^round (\d+)$/gm)];
      const round = rounds.length ? Number(rounds.at(-1)![1]) : -1;
      const file = readFileSync(join(workdir, 'doc.txt'));
      if (round < 0 || file.subarray(0, 6).toString() !== 'agent ') continue; // the kill landed outside the command: try again
      // The killed capture's pid now answers: a live process took it.
      const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
      sleepers.push(sleeper);
      const raw = new Database(db);
      const moved = raw.prepare('UPDATE write_intents SET pid = ? WHERE exec IS NOT NULL').run(sleeper.pid!).changes;
      raw.close();
      if (moved === 0) continue; // the capture had ended before the kill
      const overwritten = hashContent(personContent(trial, round, 40));
      const waypoint = await openWaypoint({ path: db });
      try {
        const recorded = async () =>
          (await waypoint.store.listCheckpoints(killed.ready!)).find(
            (checkpoint) => checkpoint.beforeHash === overwritten && checkpoint.afterHash === hashContent(file),
          );
        expect(waypoint.recoveredWrites?.skipped.length, `${where}: an open leaves a capture whose pid answers alone`).toBeGreaterThan(0);
        expect(await recorded(), where).toBeUndefined();
        const report = await recoverWriteIntents(waypoint.store, waypoint.blobs, { includeLive: true });
        expect(report.skipped, where).toEqual([]);
        const record = await recorded();
        expect(record, `${where}: the person's save the command overwrote is recorded as its change`).toBeDefined();
        expect(record!.toolCallId, where).toBe(`call_${round}`);
        expect(await waypoint.store.listWriteIntents(), where).toEqual([]);
        await waypoint.blobs.gc();
        expect((await waypoint.blobs.get(overwritten)).equals(personContent(trial, round, 40)), where).toBe(true);
        checked = true;
      } finally {
        await waypoint.close();
      }
    }
    expect(checked, `seed ${seed}: no kill landed while a command's content was in the file`).toBe(true);
  }, 180_000);
});
