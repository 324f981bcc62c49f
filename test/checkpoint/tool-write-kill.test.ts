import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent } from '../../src/model/index.js';
import { killTrial, runTrials, seededRandom, TrialDirs, testSeed } from '../fixtures/kill-trial.js';
import { agentContent, personContent } from '../fixtures/tool-write-contents.js';

const child = join(import.meta.dirname, '..', 'fixtures', 'tool-write-kill-child.ts');
const seed = testSeed(424242);
const TRIALS = 44;
const PARALLEL = 4;
const dirs = new TrialDirs();

afterAll(() => dirs.cleanup());

/**
 * Starts the writer and SIGKILLs it: `timed` trials `delayMs` after it is ready (anywhere in its
 * loop), `landed` trials `delayMs` after the agent's content is seen landing in the file (the
 * instants right after the rename, where a write is most fragile). Resolves once it is dead.
 */
async function killWhileWriting(db: string, workdir: string, trial: number, when: 'timed' | 'landed', delayMs: number) {
  const killed = await killTrial({
    script: child,
    args: [db, workdir, String(trial)],
    when,
    delayMs,
    landed: { dir: workdir, test: () => readFileSync(join(workdir, 'doc.txt')).subarray(0, 6).toString() === 'agent ' },
  });
  return { sessionId: killed.ready ?? '', signal: killed.signal, stderr: killed.stderr };
}

describe('a tool write killed at any instant', () => {
  it('leaves the file wholly before or after, and the content it overwrote recorded as a change that survives gc', async () => {
    const next = seededRandom(seed);
    const trials = Array.from({ length: TRIALS }, (_, trial) => {
      const when = trial % 2 === 0 ? ('timed' as const) : ('landed' as const);
      return { trial, when, delayMs: when === 'timed' ? Math.floor(next() * 200) : Math.floor(next() * 4) };
    });
    const outcomes = { before: 0, after: 0, recovered: 0 };
    const failures: string[] = [];
    const runTrial = async ({ trial, when, delayMs }: (typeof trials)[number]) => {
      const { workdir, db } = dirs.make('waypoint-tool-kill-');
      const killed = await killWhileWriting(db, workdir, trial, when, delayMs);
      const where = `seed ${seed}, trial ${trial}, killed ${delayMs} ms after ${when === 'timed' ? 'it was ready' : "the agent's content landed"}`;
      if (killed.signal !== 'SIGKILL' || !killed.sessionId) {
        failures.push(`${where}: the writer did not run until killed (${killed.signal}): ${killed.stderr}`);
        return;
      }
      const waypoint = await openWaypoint({ path: db });
      try {
        outcomes.recovered += waypoint.recoveredWrites?.completed.length ?? 0;
        const file = readFileSync(join(workdir, 'doc.txt'));
        const [kind, , roundText] = file.subarray(0, file.indexOf(10)).toString().split(' ');
        const round = Number(roundText);
        const expected = kind === 'agent' ? agentContent(trial, round) : personContent(trial, round);
        if (!file.equals(expected)) {
          failures.push(`${where}: doc.txt is neither wholly a person's nor the agent's content`);
          return;
        }
        const checkpoints = await waypoint.store.listCheckpoints(killed.sessionId);
        if (kind === 'person') {
          outcomes.before++;
          return;
        }
        outcomes.after++;
        const overwritten = hashContent(personContent(trial, round));
        const record = checkpoints.find((checkpoint) => checkpoint.afterHash === hashContent(file));
        if (!record || record.beforeHash !== overwritten) {
          failures.push(`${where}: doc.txt holds the agent's write ${round}, but no checkpoint of the session records the person's content it overwrote`);
          return;
        }
        await waypoint.blobs.gc();
        for (const checkpoint of checkpoints) {
          for (const hash of [checkpoint.beforeHash, checkpoint.afterHash]) {
            if (hash && !(await waypoint.blobs.has(hash))) failures.push(`${where}: checkpoint ${checkpoint.id} lost ${hash} to gc`);
          }
        }
        expect((await waypoint.blobs.get(overwritten)).equals(personContent(trial, round))).toBe(true);
      } finally {
        await waypoint.close();
      }
    };
    await runTrials(trials, PARALLEL, runTrial);
    expect(failures, `seed ${seed}: outcomes ${JSON.stringify(outcomes)}`).toEqual([]);
    expect(outcomes.before + outcomes.after).toBe(TRIALS);
    console.log(`tool-write kills (seed ${seed}): ${JSON.stringify(outcomes)}`);
    // Each trial spawns a process; on a loaded 2-core box that can take seconds.
  }, 600_000);
});
