import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { WaypointError } from '../../src/model/index.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const child = join(import.meta.dirname, '..', 'fixtures', 'gc-race-child.ts');
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? 20261201);
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', child, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  process_.stdout.on('data', (chunk) => (stdout += chunk));
  process_.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => process_.on('exit', (code) => done({ code, stdout, stderr })));
}

describe('blob gc beside writers in other processes', () => {
  it('never sweeps a content a tool write, a checkpointed fs write or a shell capture stored, whatever the interleaving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-gc-race-'));
    dirs.push(dir);
    const db = join(dir, 'store', 'waypoint.db');
    (await openWaypoint({ path: db })).close();
    const durationMs = 5000;
    const writers = [0, 1].map((index) => {
      const workdir = join(dir, `ws${index}`);
      mkdirSync(workdir);
      return run(['writer', db, workdir, String(seed + index), String(durationMs)]);
    });
    const collectors = [run(['gc', db, String(seed + 7), String(durationMs)]), run(['gc', db, String(seed + 8), String(durationMs)])];
    const results = await Promise.all([...writers, ...collectors]);
    for (const result of results) expect(result.code, `seed ${seed}: ${result.stderr}`).toBe(0);
    const gcRuns = collectors.length && results.slice(writers.length).map((result) => Number(/^gc (\d+)/m.exec(result.stdout)![1]));
    expect(Math.min(...(gcRuns as number[])), `seed ${seed}: every collector ran`).toBeGreaterThan(0);

    const expected = results.slice(0, writers.length).flatMap((result) =>
      result.stdout
        .split('\n')
        .filter((line) => line.startsWith('expect '))
        .map((line) => {
          const [, id, before, after] = line.split(' ');
          return { id: id!, before: before === '-' ? null : before!, after: after === '-' ? null : after! };
        }),
    );
    expect(expected.length, `seed ${seed}`).toBeGreaterThan(20);

    const waypoint = await openWaypoint({ path: db });
    try {
      const lost: string[] = [];
      for (const item of expected) {
        const checkpoint = await waypoint.store.getCheckpoint(item.id);
        if (checkpoint.status === 'skipped') {
          // A shell capture that found its before content gone records the change without it.
          lost.push(`${item.id}: skipped (${checkpoint.skipReason})`);
          continue;
        }
        expect([checkpoint.beforeHash, checkpoint.afterHash], `seed ${seed}: checkpoint ${item.id}`).toEqual([item.before, item.after]);
        for (const hash of [item.before, item.after]) {
          if (hash === null) continue;
          try {
            await waypoint.blobs.get(hash);
          } catch (error) {
            if (!WaypointError.is(error)) throw error;
            lost.push(`${item.id} ${hash}: ${error.code}`);
          }
        }
      }
      expect(lost, `seed ${seed}: ${lost.length} of ${expected.length} checkpoints lost content`).toEqual([]);
      const swept = results.slice(writers.length).map((result) => `${/^gc (\d+) (\d+)/m.exec(result.stdout)!.slice(1).join(' runs, ')} swept`);
      console.log(`gc beside writers (seed ${seed}): ${expected.length} checkpoints intact; collectors: ${swept.join('; ')}`);
    } finally {
      await waypoint.close();
    }
  });
});
