import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent } from '../../src/model/index.js';
import { agentContent, personContent } from '../fixtures/tool-write-contents.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const child = join(import.meta.dirname, '..', 'fixtures', 'tool-write-kill-child.ts');
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? 424242);
const TRIALS = 44;
const PARALLEL = 4;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function random(state: number): () => number {
  state = state >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/** Starts the writer, kills it `delayMs` after it is ready; resolves once it is dead. */
function killWhileWriting(db: string, workdir: string, trial: number, delayMs: number): Promise<{ sessionId: string; signal: string | null; stderr: string }> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', child, db, workdir, String(trial)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let sessionId = '';
  process_.stderr.on('data', (chunk) => (stderr += chunk));
  process_.stdout.on('data', (chunk) => {
    stdout += chunk;
    const ready = /^ready (\S+)$/m.exec(stdout);
    if (ready && !sessionId) {
      sessionId = ready[1]!;
      setTimeout(() => process_.kill('SIGKILL'), delayMs);
    }
  });
  return new Promise((done) => process_.on('exit', (_code, signal) => done({ sessionId, signal, stderr })));
}

describe('a tool write killed at any instant', () => {
  it('leaves the file wholly before or after, and the content it overwrote recorded as a change that survives gc', async () => {
    const next = random(seed);
    const trials = Array.from({ length: TRIALS }, (_, trial) => ({ trial, delayMs: Math.floor(next() * 200) }));
    const outcomes = { before: 0, after: 0, recovered: 0 };
    const failures: string[] = [];
    const runTrial = async ({ trial, delayMs }: { trial: number; delayMs: number }) => {
      const dir = mkdtempSync(join(tmpdir(), 'waypoint-tool-kill-'));
      dirs.push(dir);
      const workdir = join(dir, 'ws');
      mkdirSync(workdir);
      const db = join(dir, 'store', 'waypoint.db');
      const killed = await killWhileWriting(db, workdir, trial, delayMs);
      const where = `seed ${seed}, trial ${trial}, killed ${delayMs} ms after ready`;
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
    const queue = [...trials];
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      for (let item = queue.shift(); item; item = queue.shift()) await runTrial(item);
    }));
    expect(failures, `seed ${seed}: outcomes ${JSON.stringify(outcomes)}`).toEqual([]);
    expect(outcomes.before + outcomes.after).toBe(TRIALS);
    console.log(`tool-write kills (seed ${seed}): ${JSON.stringify(outcomes)}`);
    // Each trial spawns a process; on a loaded 2-core box that can take seconds.
  }, 240_000);
});
