import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { openWaypoint } from '../../src/engine/index.js';
import { exportedSessions, readSessionRecords } from '../../src/transfer/index.js';
import { tsNode } from '../postgres/pg-test-env.js';

export const CLI = resolve(import.meta.dirname, '..', 'postgres', 'fixtures', 'cli.ts');

/**
 * Every record of a session's family as the store returns it, and the bytes of every blob they
 * name (sha256 of each): what two stores must agree on after a copy.
 */
export async function familySnapshot(storePath: string, sessionId: string) {
  const waypoint = await openWaypoint({ path: storePath });
  try {
    const sessions = await exportedSessions(waypoint.store, sessionId, true);
    const { records, hashes } = await readSessionRecords(waypoint.store, sessions);
    const blobs: Record<string, string> = {};
    for (const hash of hashes)
      blobs[hash] = createHash('sha256')
        .update(await waypoint.blobs.get(hash))
        .digest('hex');
    return { records, blobs };
  } finally {
    await waypoint.close();
  }
}

/** Session ids in a store (empty when it holds none). */
export async function sessionIds(storePath: string): Promise<string[]> {
  const waypoint = await openWaypoint({ path: storePath });
  try {
    return (await waypoint.store.listSessions()).map((session) => session.id).sort();
  } finally {
    await waypoint.close();
  }
}

/** The CLI from source in a child process; `--json` output parsed. */
export function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, tsNode(CLI, ...args), { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 240_000 });
  return {
    code: result.status ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    // biome-ignore lint/suspicious/noExplicitAny: tests read ad-hoc fields of the CLI's JSON output.
    json: (): any => JSON.parse(result.stdout),
  };
}

/** Starts the CLI and kills it with SIGKILL after `delayMs`; resolves with how it ended. */
export function killAfter(args: string[], delayMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, tsNode(CLI, ...args), { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal });
    });
  });
}

/** Rewrites an export file's JSON lines (decompressed, changed by `edit`, compressed again). */
export function editExportLines(path: string, edit: (lines: string[]) => string[]): void {
  const lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n');
  writeFileSync(path, gzipSync(edit(lines).join('\n')));
}

/** A small deterministic generator (mulberry32) for test choices that print their seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
