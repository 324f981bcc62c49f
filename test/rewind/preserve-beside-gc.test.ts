import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { WaypointError } from '../../src/model/index.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, '..', 'fixtures');
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? 47047);
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', join(fixtures, script), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  process_.stdout.on('data', (chunk) => (stdout += chunk));
  process_.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => process_.on('exit', (code) => done({ code, stdout, stderr })));
}

describe("a rollback's preserved contents beside gc in other processes", () => {
  it('are readable the moment they are pinned and after, whatever the sweeps and pack compactions did meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-preserve-gc-'));
    dirs.push(dir);
    const db = join(dir, 'store', 'waypoint.db');
    (await openWaypoint({ path: db })).close();
    const durationMs = 5000;
    const results = await Promise.all([
      run('preserve-race-child.ts', [db, dir, String(seed), String(durationMs)]),
      run('preserve-race-child.ts', [db, dir, String(seed + 1), String(durationMs)]),
      run('gc-race-child.ts', ['gc', db, String(seed + 7), String(durationMs)]),
      run('gc-race-child.ts', ['gc', db, String(seed + 8), String(durationMs)]),
    ]);
    for (const result of results) expect(result.code, `seed ${seed}: ${result.stderr}`).toBe(0);
    const lines = results.slice(0, 2).flatMap((result) => result.stdout.split('\n'));
    expect(
      lines.filter((line) => line.startsWith('unreadable ')),
      `seed ${seed}`,
    ).toEqual([]);
    const kept = new Set<string>();
    for (const line of lines) {
      const [word, hash] = line.split(' ');
      if (word === 'kept') kept.add(hash!);
      if (word === 'released') kept.delete(hash!);
    }
    const gcRuns = results.slice(2).map((result) => Number(/^gc (\d+) (\d+)/m.exec(result.stdout)![1]));
    const swept = results.slice(2).reduce((sum, result) => sum + Number(/^gc (\d+) (\d+)/m.exec(result.stdout)![2]), 0);
    expect(Math.min(...gcRuns), `seed ${seed}: every collector ran`).toBeGreaterThan(0);
    const waypoint = await openWaypoint({ path: db });
    try {
      await waypoint.blobs.gc();
      const unreadable: string[] = [];
      for (const hash of kept) {
        try {
          await waypoint.blobs.get(hash);
        } catch (error) {
          unreadable.push(`${hash}: ${WaypointError.is(error) ? error.code : String(error)}`);
        }
      }
      expect(unreadable, `seed ${seed}: ${kept.size} kept, ${swept} swept over ${gcRuns.join('+')} gc runs`).toEqual([]);
      expect(kept.size).toBeGreaterThan(10);
      console.log(`preserve beside gc (seed ${seed}): ${kept.size} kept, ${swept} swept over ${gcRuns.join('+')} gc runs`);
    } finally {
      await waypoint.close();
    }
  }, 60_000);
});
