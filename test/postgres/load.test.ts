import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/index.js';
import { SKIP_REASON, adminQuery, dropSchema, freshSchema, postgresAvailable, schemaUrl, tsNode } from './pg-test-env.js';

const WORKER = new URL('./fixtures/load-worker.ts', import.meta.url).pathname;
const WORKERS = 8;
const OPS = Number(process.env.WAYPOINT_PG_LOAD_OPS ?? 60);
const SEED = Number(process.env.WAYPOINT_SEED ?? 1515);

interface WorkerReport {
  appended: string[];
  headMoved: number;
  rewinds: number;
  forks: Array<{ commandId: string; child: string; created: boolean }>;
  checkpoints: string[];
  errors: string[];
}

function runWorker(args: string[]): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, tsNode(WORKER, ...args), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as WorkerReport) : reject(new Error(`worker exited ${code}: ${err}`)),
    );
  });
}

if (postgresAvailable()) {
  describe('many processes on one PostgreSQL store', () => {
    const schemas: string[] = [];
    afterEach(async () => {
      for (const schema of schemas.splice(0)) await dropSchema(schema);
    });

    it(`${WORKERS} processes appending, rewinding, forking and capturing at once lose and duplicate nothing (seed ${SEED})`, async () => {
      const schema = freshSchema();
      schemas.push(schema);
      const url = schemaUrl(schema);
      const setup = await PostgresStore.open({ url });
      const sessions: string[] = [];
      for (let index = 0; index < 3; index++) sessions.push((await setup.createSession({ title: `shared ${index}` })).id);
      await setup.close();
      console.log(`load: ${WORKERS} processes × ${OPS} operations, seed ${SEED}`);
      const reports = await Promise.all(
        Array.from({ length: WORKERS }, (_, index) => runWorker([url, JSON.stringify(sessions), String(SEED + index), String(OPS)])),
      );
      expect(reports.flatMap((report) => report.errors)).toEqual([]);

      const appended = reports.flatMap((report) => report.appended);
      const rows = await adminQuery<{ id: string; parent_id: string | null; depth: number; tree_id: string }>(
        `SELECT id, parent_id, depth, tree_id FROM ${schema}.messages`,
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      // Every acknowledged append is there once; nothing is there that no one appended.
      expect(new Set(appended).size).toBe(appended.length);
      expect(rows.length).toBe(appended.length);
      for (const id of appended) expect(byId.has(id)).toBe(true);
      // Every message's parent chain is a path down to a root, one depth at a time.
      for (const row of rows) {
        const parent = row.parent_id === null ? null : byId.get(row.parent_id)!;
        expect(row.depth).toBe(parent ? parent.depth + 1 : 0);
        if (parent) expect(parent.tree_id).toBe(row.tree_id);
      }
      const all = await adminQuery<{ id: string; head_message_id: string | null }>(`SELECT id, head_message_id FROM ${schema}.sessions`);
      const store = await PostgresStore.open({ url });
      try {
        for (const session of all) {
          const history = await store.history(session.id, { parts: 'none' });
          history.forEach((message, depth) => {
            expect(message.depth).toBe(depth);
            expect(message.parentId).toBe(depth === 0 ? null : history[depth - 1]!.id);
          });
          expect(history.at(-1)?.id ?? null).toBe(session.head_message_id);
        }
      } finally {
        await store.close();
      }
      // One child per fork command id, whichever process asked first; every other ask got that child.
      const forks = reports.flatMap((report) => report.forks);
      const byCommand = new Map<string, Set<string>>();
      for (const fork of forks) byCommand.set(fork.commandId, (byCommand.get(fork.commandId) ?? new Set()).add(fork.child));
      for (const children of byCommand.values()) expect(children.size).toBe(1);
      expect(forks.filter((fork) => fork.created).length).toBe(byCommand.size);
      const forkRows = await adminQuery<{ count: number }>(`SELECT count(*)::int AS count FROM ${schema}.sessions WHERE kind = 'fork'`);
      expect(forkRows[0]!.count).toBe(byCommand.size);
      // Per-session sequence numbers stay dense under concurrent writers: no gap, no duplicate.
      for (const table of ['entries', 'checkpoints']) {
        const gaps = await adminQuery(`SELECT session_id FROM ${schema}.${table} GROUP BY session_id HAVING max(seq) <> count(*) OR min(seq) <> 1`);
        expect(gaps).toEqual([]);
      }
      const checkpoints = reports.flatMap((report) => report.checkpoints);
      expect((await adminQuery<{ count: number }>(`SELECT count(*)::int AS count FROM ${schema}.checkpoints`))[0]!.count).toBe(checkpoints.length);
      const headMoved = reports.reduce((sum, report) => sum + report.headMoved, 0);
      const rewinds = reports.reduce((sum, report) => sum + report.rewinds, 0);
      console.log(
        `load: ${appended.length} appends, ${rewinds} rewinds, ${forks.length} fork asks → ${byCommand.size} children, ${checkpoints.length} checkpoints, ${headMoved} lost head races (HEAD_MOVED, nothing written)`,
      );
      expect(appended.length).toBeGreaterThan(0);
    }, 600_000);
  });
} else {
  describe.skip(`many processes on one PostgreSQL store — skipped: ${SKIP_REASON}`, () => {});
}
