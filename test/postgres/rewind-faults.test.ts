import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { ScriptedModel, createRuntime } from '../../src/runtime/index.js';
import { snapshotTree } from '../fixtures/snapshot-tree.js';
import { tsNode } from './pg-test-env.js';
import { serverBinaries, startPrivateServer } from './private-server.js';

const WORKER = new URL('./fixtures/rewind-fault-worker.ts', import.meta.url).pathname;
const FILES = ['a.txt', 'src/b.txt', 'src/deep/c.txt'];

/** A worker process doing file rewinds on demand; `ask` sends a line and resolves the next answer that is not the pause notice. */
function startWorker(url: string, sessionId: string, blockFile: string) {
  const child = spawn(process.execPath, tsNode(WORKER, url, sessionId, blockFile), { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line));
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const next = async (predicate: (line: Record<string, unknown>) => boolean) => {
    const deadline = Date.now() + 240_000;
    for (;;) {
      const index = lines.findIndex(predicate);
      if (index !== -1) return lines.splice(index, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`the worker did not answer; stderr: ${stderr}`);
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited, new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
  };
  return {
    child,
    exited,
    send: (line: string) => child.stdin.write(`${line}\n`),
    applying: () => next((line) => line.applying === true),
    answer: () => next((line) => line.applying !== true),
  };
}

async function waitFor<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const available = serverBinaries() !== null;
if (!available && process.env.CI) {
  it('needs PostgreSQL server binaries in CI', () => {
    throw new Error('CI is set but no PostgreSQL server binaries are installed (.ci/run installs them)');
  });
}

describe.skipIf(!available)('a PostgreSQL connection cut and the server stopped during a rewind’s apply', () => {
  it('the rewind fails typed with the files put back, a pending journal is recovered on the next open, and the retry works', async () => {
    const server = await startPrivateServer();
    const base = mkdtempSync(join(tmpdir(), 'waypoint-rewind-faults-'));
    const blockFile = join(base, 'block');
    const admin = new pg.Client({ connectionString: server.url });
    try {
      const work = join(base, 'work');
      mkdirSync(join(work, 'src', 'deep'), { recursive: true });
      for (const file of FILES) writeFileSync(join(work, file), `${file} before\n`);
      // One turn rewrites three files; a rewind of the latest change writes one, and a pause after it is mid-apply (before the commit).
      const setup = await openWaypoint({ path: server.url });
      const model = ScriptedModel.fromSteps([
        { toolCalls: FILES.map((path, index) => ({ toolName: 'write', toolCallId: `call_${index}`, input: { path, content: `${path} after\n` } })) },
        { text: 'Written.' },
      ]);
      const runtime = createRuntime({ waypoint: setup, model, maxRetries: 0 });
      const session = await runtime.startSession({ workdir: work, title: 'faults during apply' });
      expect((await runtime.runTurn(session.id, 'rewrite them')).status).toBe('complete');
      await runtime.close();
      const head = (await setup.store.getSession(session.id)).headMessageId;
      await setup.close();
      const written = snapshotTree(work);
      const url = `${server.url}?application_name=waypoint_rewind_worker`;
      await admin.connect();
      const fileRewinds = async () =>
        (await admin.query("SELECT count(*)::int AS n FROM entries WHERE session_id = $1 AND type = 'file-rewind'", [session.id])).rows[0].n as number;
      const journalStates = async () => (await admin.query('SELECT state FROM journals ORDER BY created_at')).rows.map((row) => row.state as string);

      // 1. The commit's connection is cut from another connection while the commit waits for a row lock.
      let worker = startWorker(url, session.id, blockFile);
      writeFileSync(blockFile, '');
      worker.send('rewind');
      await worker.applying();
      expect(snapshotTree(work)).not.toEqual(written); // the first file step is on disk
      await admin.query('BEGIN');
      await admin.query("SELECT id FROM journals WHERE state = 'pending' FOR UPDATE");
      rmSync(blockFile);
      const waiting = await waitFor(async () => {
        const rows = (await admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'waypoint_rewind_worker' AND wait_event_type = 'Lock'"))
          .rows;
        return rows[0]?.pid ?? null;
      }, 'the commit to wait for the journal row');
      await admin.query('SELECT pg_terminate_backend($1)', [waiting]);
      await admin.query('ROLLBACK');
      const cut = await worker.answer();
      expect(cut).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE' });
      expect(snapshotTree(work)).toEqual(written);
      expect(await journalStates()).toEqual(['rolled_back']);
      expect(await fileRewinds()).toBe(0);

      // The retry works.
      worker.send('rewind');
      const retried = await worker.answer();
      expect(retried).toMatchObject({ ok: true });
      const rewound = snapshotTree(work);
      // The latest change (the last file written) is undone, the others stay.
      expect(FILES.map((file) => readFileSync(join(work, file), 'utf8'))).toEqual(
        FILES.map((file, index) => `${file} ${index === FILES.length - 1 ? 'before' : 'after'}\n`),
      );
      expect(await fileRewinds()).toBe(1);

      // 2. The server is stopped mid-apply and started again a moment later: the commit fails, its outcome is read back once the server answers, the files go back.
      writeFileSync(blockFile, '');
      worker.send(`redo ${retried.rewindId}`);
      await worker.applying();
      await admin.end();
      server.halt();
      rmSync(blockFile);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      server.start();
      const restarted = await worker.answer();
      expect(restarted).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE' });
      expect(snapshotTree(work)).toEqual(rewound);

      // 3. The server stays away: the files go back, recording the rollback fails, the journal stays pending; the worker is then killed.
      writeFileSync(blockFile, '');
      worker.send(`redo ${retried.rewindId}`);
      await worker.applying();
      server.halt();
      rmSync(blockFile);
      expect(await worker.answer()).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE' });
      expect(snapshotTree(work)).toEqual(rewound);
      worker.child.kill('SIGKILL');
      await worker.exited;
      server.start();

      // The next open recovers the pending journal: nothing pending, the files and the head as before the redo.
      const reopened = await openWaypoint({ path: server.url });
      expect(reopened.recovery?.recovered.length).toBe(1);
      expect(snapshotTree(work)).toEqual(rewound);
      expect((await reopened.store.listJournals({ state: 'pending' })).length).toBe(0);
      expect((await reopened.store.getSession(session.id)).headMessageId).toBe(head);
      await reopened.close();

      // 4. The retry, with its connection cut while its COMMIT is in flight: the server has committed
      // (it waits for a synchronous standby that does not exist), the client only sees the connection
      // end. The outcome is read back: the redo stands, the files stay as it wrote them.
      const sql = new pg.Client({ connectionString: server.url });
      await sql.connect();
      worker = startWorker(url, session.id, blockFile);
      writeFileSync(blockFile, '');
      worker.send(`redo ${retried.rewindId}`);
      await worker.applying();
      await sql.query("ALTER SYSTEM SET synchronous_standby_names = 'waypoint_no_such_standby'");
      await sql.query('SELECT pg_reload_conf()');
      rmSync(blockFile);
      const committing = await waitFor(async () => {
        const rows = (await sql.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'waypoint_rewind_worker' AND wait_event = 'SyncRep'")).rows;
        return rows[0]?.pid ?? null;
      }, 'the commit to wait for the standby');
      await sql.query('SELECT pg_terminate_backend($1)', [committing]);
      await sql.query('ALTER SYSTEM RESET synchronous_standby_names');
      await sql.query('SELECT pg_reload_conf()');
      await sql.end();
      expect(await worker.answer()).toMatchObject({ ok: true });
      expect(snapshotTree(work)).toEqual(written);
      const after = await openWaypoint({ path: server.url });
      expect(after.recovery?.recovered).toEqual([]);
      expect((await after.store.listJournals({ state: 'pending' })).length).toBe(0);
      expect(await after.store.listEntries(session.id, { type: 'file-rewind' })).toHaveLength(2);
      await after.close();
      expect(snapshotTree(work)).toEqual(written);
      worker.child.stdin.end();
      expect(await worker.exited).toBe(0);
    } finally {
      await admin.end().catch(() => undefined);
      rmSync(blockFile, { force: true });
      server.stop();
      rmSync(base, { recursive: true, force: true });
    }
  }, 900_000);
});
