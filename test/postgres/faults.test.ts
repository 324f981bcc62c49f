import { spawn } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/index.js';
import { serverBinaries, startPrivateServer } from './private-server.js';
import { tsNode } from './pg-test-env.js';

const WORKER = new URL('./fixtures/fault-worker.ts', import.meta.url).pathname;
const TYPED = new Set(['STORE_UNAVAILABLE', 'STORE_BUSY']);

async function query(url: string, text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

const available = serverBinaries() !== null;
if (!available && process.env.CI) {
  it('needs PostgreSQL server binaries in CI', () => {
    throw new Error('CI is set but no PostgreSQL server binaries are installed (.ci/run installs them)');
  });
}

describe.skipIf(!available)('a PostgreSQL server restarted and connections cut in the middle of appends', () => {
  it('every append completes or fails typed having written nothing, and appends work again afterwards', async () => {
    const server = await startPrivateServer();
    try {
      const url = `${server.url}?application_name=waypoint_fault_worker`;
      const setup = await PostgresStore.open({ url: server.url });
      const session = await setup.createSession({ title: 'through faults' });
      await setup.close();
      const child = spawn(process.execPath, tsNode(WORKER, url, session.id), { stdio: ['pipe', 'pipe', 'pipe'] });
      const acked: string[] = [];
      const failed = new Map<string, string>();
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      let buffer = '';
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) {
          const [verdict, id, code] = line.split(' ');
          if (verdict === 'ok') acked.push(id!);
          if (verdict === 'fail') failed.set(id!, code!);
        }
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const waitForAcks = async (count: number) => {
        const target = acked.length + count;
        const deadline = Date.now() + 240_000;
        while (acked.length < target) {
          if (Date.now() > deadline) throw new Error(`no progress: ${acked.length} acknowledged, ${failed.size} failed; ${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await waitForAcks(10);
      // Connection cuts: the worker's backends are terminated mid-stream, three times.
      for (let cut = 0; cut < 3; cut++) {
        await query(server.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'waypoint_fault_worker'");
        await waitForAcks(5);
      }
      // The server restarted under it.
      server.restart();
      await waitForAcks(10);
      child.stdin.end();
      expect(await exited).toBe(0);

      for (const code of failed.values()) expect(TYPED.has(code)).toBe(true);
      const rows = await query(server.url, `SELECT id, parent_id, depth FROM messages WHERE session_id = '${session.id}'`);
      const stored = new Set(rows.map((row) => row.id as string));
      for (const id of acked) expect(stored.has(id)).toBe(true);
      // A failed append wrote nothing — unless the connection broke while its COMMIT was in flight,
      // when the client cannot know; such an append is then whole, and counted.
      const unknown = [...stored].filter((id) => !acked.includes(id));
      for (const id of unknown) expect(failed.has(id)).toBe(true);
      const store = await PostgresStore.open({ url: server.url });
      try {
        const history = await store.history(session.id, { parts: 'none' });
        for (const [depth, message] of history.entries()) expect(message.parentId).toBe(depth === 0 ? null : history[depth - 1]!.id);
        expect(history.map((message) => message.id)).toEqual(rows.sort((a, b) => a.depth - b.depth).map((row) => row.id));
      } finally {
        await store.close();
      }
      console.log(
        `faults: ${acked.length} appends acknowledged, ${failed.size} failed typed (${[...new Set(failed.values())].join(', ')}), ${unknown.length} committed while their connection broke`,
      );
      expect(failed.size).toBeGreaterThan(0);
    } finally {
      server.stop();
    }
  }, 600_000);
});
