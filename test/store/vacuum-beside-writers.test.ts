import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { WaypointError } from '../../src/model/index.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const child = join(import.meta.dirname, '..', 'fixtures', 'gc-race-child.ts');
const seed = Number(process.env.WAYPOINT_TEST_SEED ?? Math.floor(Math.random() * 1_000_000));
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

const lines = (stdout: string, prefix: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith(`${prefix} `))
    .map((line) => line.split(' ').slice(1));

describe("gc's VACUUM beside writers in other processes", () => {
  it('loses no message, checkpoint or content, and no writer or collector fails, while VACUUM rebuilds the file under them', async () => {
    console.log(`vacuum beside writers: seed ${seed} (replay with WAYPOINT_TEST_SEED=${seed})`);
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-vacuum-race-'));
    dirs.push(dir);
    const db = join(dir, 'store', 'waypoint.db');
    (await openWaypoint({ path: db })).close();
    const durationMs = 5000;
    const writers = [0, 1, 2].map((index) => {
      const workdir = join(dir, `ws${index}`);
      mkdirSync(workdir);
      return run(['writer', db, workdir, String(seed + index), String(durationMs)]);
    });
    const collector = run(['vacuum', db, String(seed + 7), String(durationMs)]);
    const results = await Promise.all([...writers, collector]);
    // A SQLITE_BUSY (or any error) that escaped as an exception would have ended a process with a non-zero code.
    for (const result of results) expect(result.code, `seed ${seed}: ${result.stderr}`).toBe(0);
    const [runs, compactions] = lines(results.at(-1)!.stdout, 'vacuum')[0]!.map(Number);
    expect(runs, `seed ${seed}`).toBeGreaterThan(0);
    expect(compactions, `seed ${seed}: the VACUUM ran beside the writers`).toBeGreaterThan(0);

    const writerOutputs = results.slice(0, writers.length).map((result) => result.stdout);
    const expected = writerOutputs.flatMap((stdout) =>
      lines(stdout, 'expect').map(([id, before, after]) => ({ id: id!, hashes: [before!, after!].filter((hash) => hash !== '-') })),
    );
    const messages = writerOutputs.flatMap((stdout) => lines(stdout, 'message').map(([id]) => id!));
    expect(expected.length, `seed ${seed}`).toBeGreaterThan(10);

    const waypoint = await openWaypoint({ path: db });
    try {
      const lost: string[] = [];
      for (const id of messages) {
        const message = await waypoint.store.getMessage(id).catch((error: unknown) => error);
        if (WaypointError.is(message)) lost.push(`message ${id}: ${message.code}`);
      }
      for (const item of expected) {
        const checkpoint = await waypoint.store.getCheckpoint(item.id);
        if (checkpoint.status === 'skipped') continue; // a capture that found its before content gone says so
        for (const hash of item.hashes) {
          try {
            await waypoint.blobs.get(hash);
          } catch (error) {
            if (!WaypointError.is(error)) throw error;
            lost.push(`${item.id} ${hash}: ${error.code}`);
          }
        }
      }
      expect(lost, `seed ${seed}: lost of ${messages.length} messages and ${expected.length} checkpoints`).toEqual([]);
      console.log(
        `vacuum beside writers (seed ${seed}): ${messages.length} messages, ${expected.length} checkpoints intact; ${runs} gc runs, ${compactions} VACUUMs`,
      );
    } finally {
      await waypoint.close();
    }
  }, 300_000);
});
