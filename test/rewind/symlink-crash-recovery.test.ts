import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureExec } from '../../src/checkpoint/index.js';
import { createCaptureFixture } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { FileRewinder, recoverJournals } from '../../src/rewind/files/index.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';

const child = join(import.meta.dirname, '..', 'fixtures', 'symlink-rewind-child.ts');
const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

/** Starts the child applying the rewind; SIGKILLs it once it says it stopped after step `k`. Resolves with what it printed. */
function killAfterStep(storePath: string, sessionId: string, turnId: string, k: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--import', 'tsx', child, storePath, sessionId, turnId, String(k)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    process_.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('paused')) process_.kill('SIGKILL');
    });
    process_.once('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(output) : reject(new Error(`the child was not killed mid-apply (exit ${code}): ${output}`)),
    );
  });
}

/**
 * Starts the child applying the rewind and SIGKILLs it `delayMs` after it says "ready" (it may
 * finish first; `null`: never). Resolves with how long its apply took when it finished, else null.
 */
function killAfter(storePath: string, sessionId: string, turnId: string, delayMs: number | null): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--import', 'tsx', child, storePath, sessionId, turnId, '-1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    process_.stdout.on('data', (chunk: Buffer) => {
      if (output === '' && delayMs !== null) setTimeout(() => process_.kill('SIGKILL'), delayMs);
      output += chunk.toString();
    });
    process_.once('exit', (code, signal) => {
      const done = /done ([\d.]+)/.exec(output);
      if (signal === 'SIGKILL' || code === 0) resolve(done ? Number(done[1]) : null);
      else reject(new Error(`the child failed to run (exit ${code ?? signal}), so this trial proves nothing`));
    });
  });
}

/** A small seeded generator (mulberry32), so a failing run can be repeated with its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A rewind that puts links back (created, retargeted, deleted, replaced by a file or a directory,
// and a directory replaced by a link) is SIGKILLed after one of its steps, or at a random instant; recovery then
// brings every path back to what the agent left — links with their exact text — and a new rewind
// applies cleanly over it.
describe('a rewind of links killed mid-apply', () => {
  it('recovers links exactly after a SIGKILL between steps or at seeded random instants, and the rewind then applies', async () => {
    const fx = await createCaptureFixture();
    try {
      const outside = join(fx.dir, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'secret.txt'), 'outside\n');
      bash(
        fx.root,
        `printf 'a\\n' > a.txt; mkdir dir fromdir; printf 'f\\n' > fromdir/f.txt; printf 'plain\\n' > fromfile.txt
         ln -s a.txt retarget; ln -s a.txt tofile; ln -s dir todir; ln -s ${outside}/secret.txt gone`,
      );
      const before = snapshotTree(fx.root);
      await captureExec(
        fx.context,
        () =>
          bash(
            fx.root,
            `ln -s a.txt rel; ln -sfn ../dangling retarget; rm tofile && printf 'was a link\\n' > tofile
             rm todir && mkdir todir && printf 'x\\n' > todir/x.txt; rm gone; rm fromfile.txt && ln -s a.txt fromfile.txt
             rm -r fromdir && ln -s dir fromdir`,
          ),
        { toolName: 'Bash', toolCallId: 'links', command: 'links' },
      );
      const after = snapshotTree(fx.root);
      const preview = await new FileRewinder({ store: fx.store }).preview({ sessionId: fx.sessionId, turnId: fx.turnId, includeShellChanges: true });
      const steps = preview.files.filter((file) => file.action !== 'none').length;
      expect(steps).toBeGreaterThanOrEqual(8);
      // Four kill points spread over the apply (each child costs a process start): the first
      // step, the last but one, and two between — moves, deletes and writes of links all among them.
      const killPoints = [...new Set([0, Math.floor((steps - 1) / 3), Math.floor((2 * (steps - 1)) / 3), steps - 2])];
      for (const k of killPoints) {
        const output = await killAfterStep(fx.storePath, fx.sessionId, fx.turnId, k);
        expect(output, `step ${k}`).toContain(`paused ${k}`);
        expect(snapshotTree(fx.root), `step ${k}: the kill landed mid-apply`).not.toEqual(after);
        const report = await recoverJournals(fx.store);
        expect(JSON.stringify(report.failed), `step ${k}`).toBe('[]');
        expect(report.recovered, `step ${k}`).toHaveLength(1);
        expect(snapshotTree(fx.root), `step ${k}`).toEqual(after);
        expect(snapshotTree(outside)).toEqual({ 'secret.txt': expect.any(String) });
      }
      const rewinder = new FileRewinder({ store: fx.store });
      // Kills at seeded random instants, inside a step too (a link taken aside, a temp link not yet
      // renamed): every file wholly as the agent left it, or the rewind wholly applied and recorded.
      const applyMs = (await killAfter(fx.storePath, fx.sessionId, fx.turnId, null))!;
      expect(snapshotTree(fx.root)).toEqual(before);
      await rewinder.redo(fx.sessionId, (await fx.store.listJournals()).find((journal) => journal.state === 'committed')!.id);
      expect(snapshotTree(fx.root)).toEqual(after);
      const seed = Number(process.env.WAYPOINT_SEED ?? 20261201);
      const next = random(seed);
      const outcomes = { before: 0, rolledBack: 0, after: 0 };
      const done = new Set((await fx.store.listJournals()).map((journal) => journal.id));
      for (let trial = 0; trial < 4; trial++) {
        const delayMs = next() * applyMs * 1.2;
        const at = `seed ${seed}, trial ${trial}, kill ${delayMs.toFixed(1)} ms after ready`;
        await killAfter(fx.storePath, fx.sessionId, fx.turnId, delayMs);
        const report = await recoverJournals(fx.store);
        expect(JSON.stringify(report.failed), at).toBe('[]');
        if (report.recovered.length > 0) outcomes.rolledBack++;
        const committed = (await fx.store.listJournals()).find((journal) => journal.state === 'committed' && !done.has(journal.id));
        if (committed) {
          done.add(committed.id);
          expect(snapshotTree(fx.root), at).toEqual(before);
          outcomes.after++;
          done.add((await rewinder.redo(fx.sessionId, committed.id)).rewindId!);
        } else outcomes.before++;
        expect(snapshotTree(fx.root), at).toEqual(after);
        expect(snapshotTree(outside), at).toEqual({ 'secret.txt': expect.any(String) });
      }
      console.log(`random kills (seed ${seed}, apply ≈ ${applyMs.toFixed(1)} ms):`, outcomes);
      await rewinder.apply(await rewinder.preview({ sessionId: fx.sessionId, turnId: fx.turnId, includeShellChanges: true }));
      expect(snapshotTree(fx.root)).toEqual(before);
    } finally {
      await fx.cleanup();
    }
  }, 120_000);
});
