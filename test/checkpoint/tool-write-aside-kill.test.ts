import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { hashContent } from '../../src/model/index.js';
import { agentContent, personContent } from '../fixtures/tool-write-contents.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const child = join(import.meta.dirname, '..', 'fixtures', 'tool-write-kill-child.ts');
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? 77031);
const TRIALS = 10;
const PARALLEL = 2;
/** A person's file of ~5 MB: the write takes it aside, reads and compares it before linking its own in. */
const LINES = 250_000;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the writer (the tool-write kill test's child, with a large person's file) and SIGKILLs it
 * the instant doc.txt is seen missing after `skip` such instants: the write took the person's file
 * aside to compare it and has not linked its own content in yet. Resolves once it is dead.
 */
function killWhileAside(
  db: string,
  workdir: string,
  trial: number,
  skip: number,
  when: 'aside' | 'temp' = 'aside',
): Promise<{ sessionId: string; signal: string | null; stderr: string; aside: boolean }> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', child, db, workdir, String(trial), ...(when === 'aside' ? [String(LINES)] : [])], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let sessionId = '';
  let seen = 0;
  let aside = false;
  const watcher = watch(workdir, (_event, name) => {
    if (!sessionId || aside) return;
    if (when === 'temp') {
      // The write's temp file appeared: its content is being written, its intent may not be recorded yet.
      if (!name?.startsWith('.doc.txt.') || !name.endsWith('.wp-tmp') || seen++ < skip) return;
      aside = true;
      process_.kill('SIGKILL');
      return;
    }
    try {
      lstatSync(join(workdir, 'doc.txt'));
    } catch {
      if (seen++ < skip) return;
      aside = true;
      process_.kill('SIGKILL');
    }
  });
  // Never more than 20 s: a writer the watcher missed is killed anyway (and counted as a miss).
  const deadline = setTimeout(() => process_.kill('SIGKILL'), 20_000);
  process_.stderr.on('data', (chunk) => (stderr += chunk));
  process_.stdout.on('data', (chunk) => {
    stdout += chunk;
    sessionId ||= /^ready (\S+)$/m.exec(stdout)?.[1] ?? '';
  });
  return new Promise((done) =>
    process_.on('exit', (_code, signal) => {
      watcher.close();
      clearTimeout(deadline);
      done({ sessionId, signal, stderr, aside });
    }),
  );
}

describe('a tool write killed while it holds the file aside to compare it', () => {
  it("gets the file back at the next open: wholly the person's or the agent's, recorded, nothing left beside it", async () => {
    const failures: string[] = [];
    let hits = 0;
    const runTrial = async (trial: number) => {
      const dir = mkdtempSync(join(tmpdir(), 'waypoint-aside-kill-'));
      dirs.push(dir);
      const workdir = join(dir, 'ws');
      mkdirSync(workdir);
      const db = join(dir, 'store', 'waypoint.db');
      const killed = await killWhileAside(db, workdir, trial, (seed + trial) % 3);
      const where = `seed ${seed}, trial ${trial}`;
      if (killed.signal !== 'SIGKILL' || !killed.sessionId) {
        failures.push(`${where}: the writer did not run until killed (${killed.signal}): ${killed.stderr}`);
        return;
      }
      if (killed.aside) hits++;
      const waypoint = await openWaypoint({ path: db });
      try {
        const left = readdirSync(workdir).filter((name) => name.startsWith('.doc.txt.') && name !== '.doc.txt.saving');
        if (left.length > 0) failures.push(`${where}: left beside doc.txt: ${left.join(', ')}`);
        let file: Buffer;
        try {
          file = readFileSync(join(workdir, 'doc.txt'));
        } catch {
          failures.push(`${where}: doc.txt is gone after recovery (the person's file was left aside)`);
          return;
        }
        const [kind, , roundText] = file.subarray(0, file.indexOf(10)).toString().split(' ');
        const round = Number(roundText);
        const expected = kind === 'agent' ? agentContent(trial, round) : personContent(trial, round, LINES);
        if (!file.equals(expected)) {
          failures.push(`${where}: doc.txt is neither wholly a person's nor the agent's content`);
          return;
        }
        if (kind === 'agent') {
          const checkpoints = await waypoint.store.listCheckpoints(killed.sessionId);
          const record = checkpoints.find((checkpoint) => checkpoint.afterHash === hashContent(file));
          if (record?.beforeHash !== hashContent(personContent(trial, round, LINES)))
            failures.push(`${where}: the agent's write ${round} is in place with no record of the person's file it replaced`);
        }
      } finally {
        await waypoint.close();
      }
    };
    const queue = Array.from({ length: TRIALS }, (_, trial) => trial);
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let trial = queue.shift(); trial !== undefined; trial = queue.shift()) await runTrial(trial);
      }),
    );
    expect(failures, `seed ${seed}`).toEqual([]);
    // The kills must have landed in the window at least sometimes, or the test proved nothing.
    expect(hits, `seed ${seed}: kills that landed while the file was aside`).toBeGreaterThan(0);
    console.log(`aside kills (seed ${seed}): ${hits} of ${TRIALS} landed while doc.txt was aside`);
  }, 120_000);

  it('leaves no temp file behind when killed just as the write created it', async () => {
    const failures: string[] = [];
    let hits = 0;
    const runTrial = async (trial: number) => {
      const dir = mkdtempSync(join(tmpdir(), 'waypoint-temp-kill-'));
      dirs.push(dir);
      const workdir = join(dir, 'ws');
      mkdirSync(workdir);
      const db = join(dir, 'store', 'waypoint.db');
      const killed = await killWhileAside(db, workdir, trial, (seed + trial) % 3, 'temp');
      if (killed.signal !== 'SIGKILL' || !killed.sessionId) {
        failures.push(`seed ${seed}, trial ${trial}: the writer did not run until killed (${killed.signal}): ${killed.stderr}`);
        return;
      }
      if (killed.aside) hits++;
      const waypoint = await openWaypoint({ path: db });
      await waypoint.close();
      const left = readdirSync(workdir).filter((name) => name.endsWith('.wp-tmp') || name.endsWith('.wp-old'));
      if (left.length > 0) failures.push(`seed ${seed}, trial ${trial}: left after recovery: ${left.join(', ')}`);
    };
    const queue = Array.from({ length: TRIALS }, (_, trial) => trial);
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let trial = queue.shift(); trial !== undefined; trial = queue.shift()) await runTrial(trial);
      }),
    );
    expect(failures, `seed ${seed}`).toEqual([]);
    expect(hits, `seed ${seed}: kills that landed as the temp file appeared`).toBeGreaterThan(0);
  }, 120_000);
});
