import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, snapshotTree, type CliFixture } from './cli-harness.js';

const BIN = join(resolve(import.meta.dirname, '..', '..'), 'bin', 'waypoint.js');

/** The CLI in a child process that is killed after `timeoutMs`: a command that never returns fails the test instead of hanging it. */
function runBounded(args: string[], options: { home: string; cwd?: string; input?: string; timeoutMs?: number; env?: Record<string, string> }) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? options.home,
    env: { PATH: process.env.PATH ?? '', HOME: options.home, WAYPOINT_HOME: options.home, ...options.env },
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: options.timeoutMs ?? 30_000,
    killSignal: 'SIGKILL',
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

describe('the CLI on errors that used to escape untyped', () => {
  let fx: CliFixture;
  beforeEach(async () => {
    fx = await createCliFixture();
  });
  afterEach(() => fx.cleanup());

  it('a really corrupted pack exits 6 (corrupt stored content) from diff, rewinds and isolated forks alike; nothing changes', () => {
    const packDir = join(fx.home, 'waypoint.db.blobs');
    for (const name of readdirSync(packDir)) {
      const path = join(packDir, name);
      const bytes = readFileSync(path);
      for (let index = 0; index < bytes.length; index++) bytes[index] = bytes[index]! ^ 0x5a;
      writeFileSync(path, bytes);
    }
    const before = snapshotTree(fx.dir);
    const commands: Array<[string[], string]> = [
      [['diff', fx.checkpointIds[0]!], 'BLOB_CORRUPT'],
      [['rewind', fx.sessionId, 'latest'], 'SNAPSHOT_MISSING'],
      [['rewind', fx.sessionId, fx.checkpointIds[0]!], 'SNAPSHOT_MISSING'],
      [['rewind', fx.sessionId, 'code', fx.first.inputId, '--apply'], 'SNAPSHOT_MISSING'],
      [['fork', fx.sessionId, '--isolated', join(fx.dir, 'isolated')], 'FORK_STATE_UNAVAILABLE'],
    ];
    for (const [args, code] of commands) {
      const run = runBounded([...args, '--json'], { home: fx.home });
      expect({ args, exit: run.code, code: JSON.parse(run.stdout).error?.code }).toEqual({ args, exit: 6, code });
      expect(JSON.parse(run.stdout).error.message).toContain('corrupt');
    }
    expect(snapshotTree(fx.dir)).toEqual(before);
  });

  it('fork --isolated into /proc returns at once with DIRECTORY_UNUSABLE (exit 2) instead of never returning', () => {
    for (const target of ['/proc/waypoint-fork', '/proc/no-such-dir/deeper/fork']) {
      const run = runBounded(['fork', fx.sessionId, '--isolated', target, '--json'], { home: fx.home });
      expect({ target, signal: run.signal, exit: run.code }).toEqual({ target, signal: null, exit: 2 });
      expect(JSON.parse(run.stdout).error).toMatchObject({
        code: 'DIRECTORY_UNUSABLE',
        details: { path: target, reason: 'special_filesystem', filesystem: 'proc' },
      });
    }
    expect(existsSync('/proc/no-such-dir')).toBe(false);
  });

  it('--store <file>/waypoint.db (and $WAYPOINT_HOME at a file) is STORE_PATH_UNUSABLE naming the path, in the chat too; nothing is created', () => {
    const file = join(fx.dir, 'plain-file');
    writeFileSync(file, 'a file, not a directory\n');
    const script = join(fx.dir, 'script.json');
    writeFileSync(script, JSON.stringify({ steps: [{ text: 'hello' }] }));
    const store = join(file, 'waypoint.db');
    const runs = [
      runBounded(['chat', '--model', `scripted:${script}`, '--store', store], { home: fx.home, cwd: fx.project, input: 'hi\n' }),
      runBounded(['chat', '--model', `scripted:${script}`], { home: fx.home, cwd: fx.project, input: 'hi\n', env: { WAYPOINT_HOME: file } }),
    ];
    for (const run of runs) {
      expect(run.code).toBe(5);
      expect(run.stderr).toContain(`Cannot create the store ${store}`);
      expect(run.stderr).toContain('plain-file is a file, not a directory');
      expect(run.stderr).not.toContain('Unexpected failure');
    }
    expect(readFileSync(file, 'utf8')).toBe('a file, not a directory\n');
  });
});
