import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { beginExec, endExec, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent } from '../../src/model/index.js';
import { killTrial, runTrials, seededRandom, TrialDirs, testSeed } from '../fixtures/kill-trial.js';
import { personContent } from '../fixtures/tool-write-contents.js';

const child = join(import.meta.dirname, '..', 'fixtures', 'exec-kill-child.ts');
const seed = testSeed(31031);
const TRIALS = 16;
const PARALLEL = 4;
const dirs = new TrialDirs();

afterAll(() => dirs.cleanup());

/**
 * Starts the capturing child and SIGKILLs it `delayMs` after the command's content is seen landing
 * in the file (the instants between the command's write and the capture's record, where a capture
 * is fragile), or `delayMs` after it is ready (`timed`). Its own process group: the kill takes the
 * shell command with it, leaving the file as it was at that instant. Resolves once it is dead.
 */
async function killWhileCapturing(db: string, workdir: string, trial: number, when: 'timed' | 'landed', delayMs: number) {
  const killed = await killTrial({
    script: child,
    args: [db, workdir, String(trial)],
    when,
    delayMs,
    group: true,
    landed: { dir: workdir, test: () => readFileSync(join(workdir, 'doc.txt')).subarray(0, 6).toString() === 'agent ' },
  });
  const rounds = [...killed.stdout.matchAll(/^round (\d+)$/gm)];
  return { sessionId: killed.ready ?? '', round: rounds.length ? Number(rounds.at(-1)![1]) : -1, signal: killed.signal, stderr: killed.stderr };
}

describe('a shell command whose capture is killed at any instant', () => {
  it('has the content it overwrote recorded as its change by the next capture, readable after gc', async () => {
    const next = seededRandom(seed);
    const trials = Array.from({ length: TRIALS }, (_, trial) => {
      const when = trial % 4 === 3 ? ('timed' as const) : ('landed' as const);
      return { trial, when, delayMs: when === 'timed' ? Math.floor(next() * 300) : Math.floor(next() * 6) };
    });
    const outcomes = { person: 0, agent: 0, recorded: 0 };
    const failures: string[] = [];
    const runTrial = async ({ trial, when, delayMs }: (typeof trials)[number]) => {
      const { workdir, db } = dirs.make('waypoint-exec-kill-');
      const killed = await killWhileCapturing(db, workdir, trial, when, delayMs);
      const where = `seed ${seed}, trial ${trial}, killed ${delayMs} ms after ${when === 'timed' ? 'it was ready' : "the command's content landed"}`;
      if (killed.signal !== 'SIGKILL' || !killed.sessionId) {
        failures.push(`${where}: the child did not run until killed (${killed.signal}): ${killed.stderr}`);
        return;
      }
      const waypoint = await openWaypoint({ path: db });
      try {
        const file = readFileSync(join(workdir, 'doc.txt'));
        // The session's next capture (another process, after a gc) records what the killed one could not.
        await waypoint.blobs.gc();
        const context = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: killed.sessionId, turnId: null });
        const before = (await waypoint.store.listCheckpoints(killed.sessionId)).length;
        await endExec(await beginExec(context, { toolName: 'Bash', toolCallId: 'next' }));
        outcomes.recorded += (await waypoint.store.listCheckpoints(killed.sessionId)).length - before;
        await waypoint.blobs.gc();
        const round = killed.round;
        const saves = Array.from({ length: round + 2 }, (_, index) => personContent(trial, index, 40));
        if (round < 0 || saves.some((save) => save.equals(file))) {
          outcomes.person++;
          return;
        }
        // The command began writing (wholly or partly): the person's save it overwrote must be on record.
        outcomes.agent++;
        const overwritten = hashContent(saves[round]!);
        const checkpoints = await waypoint.store.listCheckpoints(killed.sessionId);
        const record = checkpoints.find((checkpoint) => checkpoint.afterHash === hashContent(file) && checkpoint.beforeHash === overwritten);
        if (!record) {
          failures.push(`${where}: doc.txt holds what command ${round} wrote (${file.length} bytes), but no checkpoint records the person's save it overwrote`);
          return;
        }
        if (record.toolCallId !== `call_${round}` || record.source !== 'exec')
          failures.push(`${where}: the change is recorded for ${record.source} ${record.toolCallId}, not the killed command call_${round}`);
        for (const checkpoint of checkpoints)
          for (const hash of [checkpoint.beforeHash, checkpoint.afterHash])
            if (hash && !(await waypoint.blobs.has(hash))) failures.push(`${where}: checkpoint ${checkpoint.id} lost ${hash} to gc`);
        if (!(await waypoint.blobs.get(overwritten)).equals(saves[round]!)) failures.push(`${where}: the person's save reads back wrong`);
      } finally {
        await waypoint.close();
      }
    };
    await runTrials(trials, PARALLEL, runTrial);
    expect(failures, `seed ${seed}: outcomes ${JSON.stringify(outcomes)}`).toEqual([]);
    expect(outcomes.person + outcomes.agent).toBe(TRIALS);
    // Most kills land between the command's write and its record: the case under test.
    expect(outcomes.agent, `seed ${seed}: outcomes ${JSON.stringify(outcomes)}`).toBeGreaterThan(TRIALS / 4);
    console.log(`exec-capture kills (seed ${seed}): ${JSON.stringify(outcomes)}`);
  }, 120_000);
});
