/**
 * The PostgreSQL store beside the SQLite store, measured in the same run on the same operations:
 * history reads (the newest 50, and the whole path), a fork and a conversation rewind (a head move
 * and back), at a short and a long history. Reports PostgreSQL / SQLite ratios, and for each
 * backend whether forks, rewinds and the newest page stay flat with history length (long / short ≤ 2).
 * Needs a server: `$WAYPOINT_BENCH_POSTGRES_URL` (else `$WAYPOINT_TEST_POSTGRES_URL`); a schema of
 * its own is created and dropped.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Store } from '../../src/store/index.js';
import { timeMedian, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'postgres';

async function conversation(store: Store, messages: number) {
  const { id } = await store.createSession({ title: 'long' });
  const ids: string[] = [];
  for (let index = 0; index < messages; index++) {
    const role = index % 2 === 0 ? 'user' : 'assistant';
    ids.push((await store.appendMessage({ sessionId: id, role, parts: [{ type: 'text', text: `${role} ${index} ${'x'.repeat(120)}` }] })).message.id);
  }
  return { sessionId: id, ids };
}

type Measured = Record<string, { short: number; long: number }>;

async function measure(store: Store, shortCount: number, longCount: number): Promise<Measured> {
  const short = await conversation(store, shortCount);
  const long = await conversation(store, longCount);
  const result: Measured = {};
  const both = async (name: string, op: (session: { sessionId: string; ids: string[] }) => () => Promise<unknown>, runs = 15) => {
    result[name] = { short: await timeMedian(op(short), runs, 3), long: await timeMedian(op(long), runs, 3) };
  };
  await both('history, newest 50', (session) => () => store.history(session.sessionId, { last: 50 }));
  await both('history, whole path', (session) => () => store.history(session.sessionId), 5);
  await both('fork at the head', (session) => () => store.forkSession({ parentSessionId: session.sessionId, at: session.ids.at(-1)!, kind: 'fork' }));
  await both('rewind and redo (head moves)', (session) => async () => {
    await store.moveHead({ sessionId: session.sessionId, to: session.ids.at(-11)!, reason: 'rewind', bumpGeneration: true });
    await store.moveHead({ sessionId: session.sessionId, to: session.ids.at(-1)!, reason: 'redo' });
  });
  return result;
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const base = process.env.WAYPOINT_BENCH_POSTGRES_URL ?? process.env.WAYPOINT_TEST_POSTGRES_URL;
    if (!base) {
      console.log('postgres: skipped — set WAYPOINT_BENCH_POSTGRES_URL (or WAYPOINT_TEST_POSTGRES_URL) to a server');
      return [];
    }
    const shortCount = 100;
    const longCount = context.quick ? 2_000 : 10_000;
    const schema = `wp_bench_${randomBytes(4).toString('hex')}`;
    const url = new URL(base);
    url.searchParams.set('schema', schema);
    const sqlite = await SqliteStore.open({ path: join(context.tempDir(), 'store', 'bench.db') });
    const postgres = await PostgresStore.open({ url: url.toString() });
    try {
      const onSqlite = await measure(sqlite, shortCount, longCount);
      const onPostgres = await measure(postgres, shortCount, longCount);
      const results: BenchResult[] = [];
      for (const [name, value] of Object.entries(onPostgres)) {
        const baseline = onSqlite[name]!;
        results.push({
          suite: SUITE,
          name: `postgres ${name} at ${longCount} msgs`,
          value: value.long,
          unit: 'ms',
          baseline: { name: 'sqlite', value: baseline.long },
          ratio: value.long / baseline.long,
          note: 'PostgreSQL over TCP against embedded SQLite',
        });
        if (name === 'history, whole path') continue;
        for (const [backend, measured] of [
          ['postgres', value],
          ['sqlite', baseline],
        ] as const) {
          const ratio = measured.long / measured.short;
          results.push({
            suite: SUITE,
            name: `${backend} ${name}: ${longCount} vs ${shortCount} msgs`,
            value: measured.long,
            unit: 'ms',
            baseline: { name: `at ${shortCount} msgs`, value: measured.short },
            ratio,
            goal: '≤ 2',
            met: ratio <= 2,
          });
        }
      }
      return results;
    } finally {
      await sqlite.close();
      await postgres.close();
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  },
};

export default suite;
