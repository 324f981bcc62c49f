import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureExec, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint } from '../../src/engine/index.js';
import { TrialDirs, testSeed } from '../fixtures/kill-trial.js';

// Two processes capture shell commands of one session while a person saves the files they share
// and a third process runs gc in a loop: each capture pins the contents its before-scan found new
// (the person's saves, kept only by the session's scan pins until a command changes them) while
// the other pins its own in turn. No pin may replace another's: when the session's next command
// rewrites every file, each content it overwrote — known from a scan state one of the two saved —
// must read back, and so must every content any checkpoint names, after a last gc.
const child = join(import.meta.dirname, '..', 'fixtures', 'exec-pins-race-child.ts');
const repoRoot = resolve(import.meta.dirname, '../..');
const seed = testSeed(2024);
const DURATION_MS = 8000;
const dirs = new TrialDirs();
afterAll(() => dirs.cleanup());

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', child, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  process_.stdout.on('data', (chunk) => (stdout += chunk));
  process_.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => process_.on('exit', (code) => done({ code, stdout, stderr })));
}

describe('scan pins of two captures of one session, in two processes, beside gc', () => {
  it(`keep every content a scan state or a checkpoint names (seed ${seed}, printed on failure)`, async () => {
    const { workdir, db } = dirs.make('waypoint-exec-pins-race-');
    for (let file = 0; file < 6; file++) writeFileSync(join(workdir, `f${file}.txt`), `initial ${file}\n`);
    const setup = await openWaypoint({ path: db });
    const session = await setup.store.createSession({ title: 'two capturing processes', workdir });
    // The session's first scan state, so both processes start from one.
    await captureExec(await openCaptureContext({ store: setup.store, blobs: setup.blobs, sessionId: session.id, turnId: null }), () => undefined);
    await setup.close();

    const results = await Promise.all([
      run(['capture', db, session.id, workdir, String(seed), String(DURATION_MS), 'a']),
      run(['capture', db, session.id, workdir, String(seed + 1), String(DURATION_MS), 'b']),
      run(['gc', db, String(seed + 2), String(DURATION_MS)]),
      run(['person', workdir, String(seed + 3), String(DURATION_MS)]),
    ]);
    const context = `seed ${seed} (rerun with WAYPOINT_TEST_SEED=${seed})`;
    for (const result of results) expect(result.code, `${context}: ${result.stderr}`).toBe(0);
    const [a = 0, b = 0, gc = 0] = results.map((result) => Number(/^done (\d+)$/m.exec(result.stdout)?.[1] ?? 0));

    const waypoint = await openWaypoint({ path: db });
    try {
      await waypoint.blobs.gc();
      // The session's next command rewrites every file: what each held is taken from the scan state.
      const capture = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: null });
      const held = new Map(Array.from({ length: 6 }, (_, file) => [`f${file}.txt`, readFileSync(join(workdir, `f${file}.txt`))]));
      await captureExec(capture, () => {
        for (const name of held.keys()) writeFileSync(join(workdir, name), `last ${name}\n`);
      });
      await waypoint.blobs.gc();
      const unreadable: string[] = [];
      const checkpoints = await waypoint.store.listCheckpoints(session.id);
      for (const checkpoint of checkpoints)
        for (const hash of [checkpoint.beforeHash, checkpoint.afterHash])
          if (hash && !(await waypoint.blobs.has(hash))) unreadable.push(`${checkpoint.id} (${checkpoint.toolCallId} ${checkpoint.path}) ${hash.slice(0, 12)}`);
      expect(unreadable, `${context}: ${a} + ${b} captures beside ${gc} gc runs`).toEqual([]);
      const last = checkpoints.filter((checkpoint) => checkpoint.afterHash !== null && held.has(checkpoint.path.slice(checkpoint.path.indexOf(':') + 1)));
      for (const [name, content] of held) {
        const record = last.filter((checkpoint) => checkpoint.path === `workspace:${name}`).at(-1);
        expect(record, `${context}: the last command's change of ${name}`).toBeDefined();
        expect((await waypoint.blobs.get(record!.beforeHash!)).equals(content), `${context}: ${name} before the last command`).toBe(true);
      }
      console.log(`scan pins race (seed ${seed}): ${a} + ${b} captures, ${gc} gc runs, ${checkpoints.length} checkpoints`);
      expect(a + b, context).toBeGreaterThan(4);
    } finally {
      await waypoint.close();
    }
  }, 180_000);
});
