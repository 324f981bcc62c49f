import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/index.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';
import { CLI, SKIP_REASON, dropSchema, freshSchema, postgresAvailable, schemaUrl, tsNode } from './pg-test-env.js';

const MACHINE = new URL('./fixtures/machine.ts', import.meta.url).pathname;

/**
 * Whether this process may hide directories from a child in a mount namespace of its own
 * (`unshare --mount`, root): then machine B runs with machine A's directory covered by an empty
 * tmpfs. Elsewhere A's directory is moved away while B runs and put back after.
 */
const CAN_UNSHARE = spawnSync('unshare', ['--mount', 'true']).status === 0;

/** A "machine": its own home, host id and directories; only the database URL is shared. `hidden`: directories it must not see. */
function machine(base: string, name: string, hidden: string[] = []) {
  const home = join(base, name, 'home');
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '', HOME: home, WAYPOINT_HOME: home, WAYPOINT_HOST_ID: `machine-${name}` };
  const run = (args: string[]) => {
    let command = process.execPath;
    let argv = args;
    if (hidden.length > 0 && CAN_UNSHARE) {
      // Each hidden directory is covered by an empty tmpfs in a private mount namespace; the
      // command runs only when the directory reads as empty there.
      const cover = hidden.map((dir) => `mount -t tmpfs -o size=1m waypoint-hidden "${dir}" && [ -z "$(ls -A "${dir}")" ]`).join(' && ');
      command = 'unshare';
      argv = ['--mount', '--propagation', 'private', 'sh', '-c', `${cover} && exec "$0" "$@"`, process.execPath, ...args];
    }
    const moved = hidden.length > 0 && !CAN_UNSHARE ? hidden.map((dir) => [dir, `${dir}.away-while-another-machine-runs`] as const) : [];
    for (const [dir, away] of moved) renameSync(dir, away);
    try {
      const result = spawnSync(command, argv, { cwd: home, env, encoding: 'utf8', timeout: 240_000 });
      if (result.status !== 0) throw new Error(`machine ${name} failed (${result.status}): ${result.stdout}\n${result.stderr}`);
      return result.stdout;
    } finally {
      for (const [dir, away] of moved) renameSync(away, dir);
    }
  };
  return {
    dir: join(base, name),
    cli: (...args: string[]) => run(tsNode(CLI, ...args)),
    // biome-ignore lint/suspicious/noExplicitAny: the fixture prints ad-hoc JSON.
    script: (...args: string[]): any =>
      JSON.parse(
        run(tsNode(MACHINE, ...args))
          .trim()
          .split('\n')
          .at(-1)!,
      ),
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A tree snapshot with the files below `node_modules/` gathered under one key, to take it out whole. */
function groupTree(tree: Record<string, string>): Record<string, string> {
  const grouped: Record<string, string> = {};
  for (const [path, value] of Object.entries(tree)) {
    if (path.startsWith('node_modules/')) grouped.node_modules = `${grouped.node_modules ?? ''}${path}=${value};`;
    else grouped[path] = value;
  }
  return grouped;
}

if (postgresAvailable()) {
  describe('two machines sharing one PostgreSQL store', () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it(`B, which cannot see A’s directory (${CAN_UNSHARE ? 'covered by a tmpfs in B’s own mount namespace' : 'moved away while B runs'}), continues A’s session from the store alone: the files byte for byte as at that point, a turn there, A’s log shows it`, async () => {
      const schema = freshSchema();
      const base = mkdtempSync(join(tmpdir(), 'waypoint-machines-'));
      cleanups.push(async () => {
        rmSync(base, { recursive: true, force: true });
        await dropSchema(schema);
      });
      const url = schemaUrl(schema);
      const a = machine(base, 'a');
      const b = machine(base, 'b', [join(base, 'a')]);
      const workA = join(a.dir, 'project');
      mkdirSync(join(workA, 'src', 'deep'), { recursive: true });
      mkdirSync(join(workA, 'node_modules', 'dep'), { recursive: true });
      writeFileSync(join(workA, 'README.md'), '# shared project\n');
      writeFileSync(join(workA, 'src', 'deep', 'data.bin'), Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]));
      writeFileSync(join(workA, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
      symlinkSync('src/deep/data.bin', join(workA, 'data-link'));
      writeFileSync(join(workA, '.gitignore'), 'node_modules/\n');
      writeFileSync(join(workA, 'node_modules', 'dep', 'index.js'), 'module.exports = 1\n');
      const started = a.script('turn', url, workA, '-', 'notes.md', 'written on A\n');
      expect(started.status).toBe('complete');
      const reader = await PostgresStore.open({ url });
      const point = (await reader.getSession(started.sessionId)).headMessageId!;
      const { node_modules: _ignored, ...atPoint } = groupTree(snapshotTree(workA));
      // A goes on after the point: B must not see these.
      expect(a.script('turn', url, '-', started.sessionId, 'notes.md', 'changed later on A\n').status).toBe('complete');
      expect(a.script('turn', url, '-', started.sessionId, 'src/later.ts', 'later\n').status).toBe('complete');
      expect((await reader.getSession(started.sessionId)).headMessageId).not.toBe(point);
      await reader.close();

      const listed = JSON.parse(b.cli('sessions', '--json', '--store', url));
      expect(listed.sessions.map((row: { id: string }) => row.id)).toContain(started.sessionId);
      const workB = join(b.dir, 'project');
      const continued = JSON.parse(b.cli('continue', started.sessionId, '--at', point, '--dir', workB, '--json', '--store', url));
      const childId: string = continued.session.id;
      expect(continued.materialized).toMatchObject({ dir: workB, gitSkipped: 'built_from_store', notCopied: [] });
      expect(continued.materialized.fromStore.scannedAt).toEqual(expect.any(Number));
      expect(continued.materialized.fromStore.omitted).toContain('node_modules');
      // Every tracked file as it was on A at that point, byte for byte, modes and links included; the ignored directory is not there.
      expect(groupTree(snapshotTree(workB))).toEqual(atPoint);
      expect(existsSync(join(workB, 'node_modules'))).toBe(false);

      const turn = b.script('turn', url, '-', childId, 'more.md', 'written on B\n');
      expect(turn.status).toBe('complete');
      expect(readFileSync(join(workB, 'more.md'), 'utf8')).toBe('written on B\n');
      expect(existsSync(join(workA, 'more.md'))).toBe(false);
      expect(readFileSync(join(workA, 'notes.md'), 'utf8')).toBe('changed later on A\n');

      const log = a.cli('log', started.sessionId, '--store', url);
      expect(log).toContain(childId);
    }, 600_000);

    it('opening the store recovers only this machine’s unfinished journals and never touches another machine’s files', async () => {
      const schema = freshSchema();
      const base = mkdtempSync(join(tmpdir(), 'waypoint-machines-'));
      cleanups.push(async () => {
        rmSync(base, { recursive: true, force: true });
        await dropSchema(schema);
      });
      const url = schemaUrl(schema);
      const a = machine(base, 'a');
      const b = machine(base, 'b');
      const workA = join(a.dir, 'project');
      mkdirSync(workA, { recursive: true });
      // A rewind on A died half-way: its journal is pending; the file holds what it wrote.
      writeFileSync(join(workA, 'app.js'), 'after\n');
      const store = await PostgresStore.open({ url });
      await store.blobs.putMany(
        ['before\n', 'after\n'].map((text) => ({
          record: { hash: sha256(text), size: text.length, storedSize: text.length, encoding: 'raw' as const, baseHash: null, chainDepth: 0 },
          bytes: Buffer.from(text),
        })),
      );
      const journal = await store.createJournal({
        kind: 'file-rewind',
        root: workA,
        items: [{ path: 'app.js', expectedHash: sha256('before\n'), targetHash: sha256('after\n') }],
        metadata: { roots: [{ name: 'workspace', dir: workA, kind: 'workspace' }], pid: 2 ** 22 + 7, host: 'machine-a' },
      });
      await store.close();

      const onB = b.script('open', url);
      expect(onB.recovery.recovered).toEqual([]);
      expect(onB.recovery.skipped.map((entry: { journalId: string }) => entry.journalId)).toEqual([journal.id]);
      expect(readFileSync(join(workA, 'app.js'), 'utf8')).toBe('after\n');

      const onA = a.script('open', url);
      expect(onA.recovery.recovered.map((entry: { journalId: string }) => entry.journalId)).toEqual([journal.id]);
      expect(readFileSync(join(workA, 'app.js'), 'utf8')).toBe('before\n');
      const reopened = await PostgresStore.open({ url });
      expect((await reopened.getJournal(journal.id)).state).toBe('rolled_back');
      await reopened.close();
    }, 600_000);
  });
} else {
  describe.skip(`two machines sharing one PostgreSQL store — skipped: ${SKIP_REASON}`, () => {});
}
