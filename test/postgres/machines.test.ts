import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/index.js';
import { CLI, SKIP_REASON, dropSchema, freshSchema, postgresAvailable, schemaUrl, tsNode } from './pg-test-env.js';

const MACHINE = new URL('./fixtures/machine.ts', import.meta.url).pathname;

/** A "machine": its own home, host id and directories; only the database URL is shared. */
function machine(base: string, name: string) {
  const home = join(base, name, 'home');
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '', HOME: home, WAYPOINT_HOME: home, WAYPOINT_HOST_ID: `machine-${name}` };
  const run = (args: string[]) => {
    const result = spawnSync(process.execPath, args, { cwd: home, env, encoding: 'utf8', timeout: 240_000 });
    if (result.status !== 0) throw new Error(`machine ${name} failed (${result.status}): ${result.stdout}\n${result.stderr}`);
    return result.stdout;
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

if (postgresAvailable()) {
  describe('two machines sharing one PostgreSQL store', () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it('B lists A’s session, forks it into its own directory and runs a turn there; A’s log shows B’s fork', async () => {
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
      writeFileSync(join(workA, 'README.md'), '# shared project\n');
      const started = a.script('turn', url, workA, '-', 'notes.md', 'written on A\n');
      expect(started.status).toBe('complete');

      const listed = JSON.parse(b.cli('sessions', '--json', '--store', url));
      expect(listed.sessions.map((row: { id: string }) => row.id)).toContain(started.sessionId);

      const workB = join(b.dir, 'project');
      const reader = await PostgresStore.open({ url });
      const head = (await reader.getSession(started.sessionId)).headMessageId!;
      await reader.close();
      const forked = JSON.parse(b.cli('fork', started.sessionId, '--message', head, '--isolated', workB, '--json', '--store', url));
      const childId: string = forked.session.id;
      expect(typeof childId).toBe('string');
      expect(readFileSync(join(workB, 'notes.md'), 'utf8')).toBe('written on A\n');
      const continued = b.script('turn', url, '-', childId, 'more.md', 'written on B\n');
      expect(continued.status).toBe('complete');
      expect(readFileSync(join(workB, 'more.md'), 'utf8')).toBe('written on B\n');
      expect(existsSync(join(workA, 'more.md'))).toBe(false);

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
