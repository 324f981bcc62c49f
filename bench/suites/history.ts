import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore, type Store } from '../../src/store/index.js';
import { timeMedian, type BenchContext, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'history';
const KB = 'x'.repeat(1024);

/** A session with `count` messages alternating user / assistant, 1 KB of text each. */
async function conversation(store: Store, count: number): Promise<{ sessionId: string; ids: string[] }> {
  const session = await store.createSession({ title: `${count} messages` });
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const { message } = await store.appendMessage({
      sessionId: session.id,
      role: index % 2 ? 'assistant' : 'user',
      parts: [{ type: 'text', text: `${index} ${KB}` }],
    });
    ids.push(message.id);
  }
  return { sessionId: session.id, ids };
}

/**
 * The floor of a full read, with no Waypoint code: the same messages' parts column read through a
 * second connection (with the store's page cache size) and each row parsed, nothing else: no other
 * column, no message objects.
 */
async function partsFloor(location: string, firstId: string, lastId: string): Promise<number> {
  const db = new Database(location, { readonly: true });
  try {
    db.pragma('cache_size = -32768');
    const parts = db
      .prepare('SELECT parts FROM message_parts WHERE seq BETWEEN (SELECT seq FROM messages WHERE id = ?) AND (SELECT seq FROM messages WHERE id = ?)')
      .pluck();
    return await timeMedian(() => (parts.all(firstId, lastId) as string[]).map((json) => JSON.parse(json) as unknown), 11, 1);
  } finally {
    db.close();
  }
}

async function measureAt(store: SqliteStore, count: number, withFloor = false) {
  const { sessionId, ids } = await conversation(store, count);
  const appendMs = await timeMedian(() => store.appendMessage({ sessionId, role: 'user', parts: [{ type: 'text', text: KB }] }), 101, 5);
  let flip = false;
  const moveMs = await timeMedian(
    async () => {
      flip = !flip;
      await store.moveHead({ sessionId, to: flip ? ids[ids.length - 2]! : ids[ids.length - 1]!, reason: flip ? 'rewind' : 'redo', bumpGeneration: flip });
    },
    101,
    5,
  );
  const forkMs = await timeMedian(() => store.forkSession({ parentSessionId: sessionId, at: ids[ids.length - 1]!, kind: 'fork' }), 101, 5);
  const readMs = await timeMedian(() => store.history(sessionId), count >= 100_000 ? 5 : 11, 1);
  const readLightMs = await timeMedian(() => store.history(sessionId, { parts: 'none' }), count >= 100_000 ? 5 : 11, 1);
  const lastPageMs = await timeMedian(() => store.history(sessionId, { last: 50 }), 51, 3);
  const floorMs = withFloor ? await partsFloor(store.location, ids[0]!, ids[ids.length - 1]!) : Number.NaN;
  return { appendMs, moveMs, forkMs, readMs, readLightMs, lastPageMs, floorMs };
}

async function toolOutputListing(context: BenchContext, count: number): Promise<{ fullMs: number; lightMs: number }> {
  const store = await SqliteStore.open({ path: join(context.tempDir(), 'tools.db') });
  const session = await store.createSession();
  const output = 'o'.repeat(20_000);
  for (let index = 0; index < count; index++) {
    const isUser = index % 2 === 0;
    await store.appendMessage({
      sessionId: session.id,
      role: isUser ? 'user' : 'tool',
      parts: isUser ? [{ type: 'text', text: `question ${index}` }] : [{ type: 'tool-result', toolCallId: `c${index}`, toolName: 'bash', output }],
    });
  }
  const fullMs = await timeMedian(() => store.history(session.id), 3, 1);
  const lightMs = await timeMedian(() => store.history(session.id, { parts: 'none' }), 7, 1);
  await store.close();
  return { fullMs, lightMs };
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const small = 100;
    const large = context.quick ? 10_000 : 100_000;
    const mid = 10_000;
    const store = await SqliteStore.open({ path: join(context.tempDir(), 'history.db') });
    const atSmall = await measureAt(store, small);
    const atMid = await measureAt(store, mid, true);
    const atLarge = await measureAt(store, large);
    const sizeBytes = statSync(store.location).size + (statSync(`${store.location}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    await store.close();
    const tools = await toolOutputListing(context, context.quick ? 2_000 : 10_000);
    const ratio = (a: number, b: number) => a / b;
    const results: BenchResult[] = [
      {
        suite: SUITE,
        name: `append at ${large} msgs`,
        value: atLarge.appendMs,
        unit: 'ms',
        baseline: { name: `at ${small}`, value: atSmall.appendMs },
        ratio: ratio(atLarge.appendMs, atSmall.appendMs),
        goal: '≤ 2 (flat)',
        met: ratio(atLarge.appendMs, atSmall.appendMs) <= 2,
      },
      {
        suite: SUITE,
        name: `head move (rewind/redo) at ${large} msgs`,
        value: atLarge.moveMs,
        unit: 'ms',
        baseline: { name: `at ${small}`, value: atSmall.moveMs },
        ratio: ratio(atLarge.moveMs, atSmall.moveMs),
        goal: '≤ 2',
        met: ratio(atLarge.moveMs, atSmall.moveMs) <= 2,
      },
      {
        suite: SUITE,
        name: `new session at message (fork) at ${large} msgs`,
        value: atLarge.forkMs,
        unit: 'ms',
        baseline: { name: `at ${small}`, value: atSmall.forkMs },
        ratio: ratio(atLarge.forkMs, atSmall.forkMs),
        goal: '≤ 2',
        met: ratio(atLarge.forkMs, atSmall.forkMs) <= 2,
      },
      { suite: SUITE, name: 'history read, 100 msgs', value: atSmall.readMs, unit: 'ms' },
      {
        suite: SUITE,
        name: 'history read, 10k msgs',
        value: atMid.readMs,
        unit: 'ms',
        baseline: { name: 'their parts column alone, read and parsed', value: atMid.floorMs },
        ratio: ratio(atMid.readMs, atMid.floorMs),
        goal: '< 50 ms',
        met: atMid.readMs < 50,
      },
      {
        suite: SUITE,
        name: `history read, ${large} msgs`,
        value: atLarge.readMs,
        unit: 'ms',
        baseline: { name: '10k msgs', value: atMid.readMs },
        ratio: ratio(atLarge.readMs, atMid.readMs),
        note: 'linear in path length',
      },
      { suite: SUITE, name: 'history metadata-only, 10k msgs', value: atMid.readLightMs, unit: 'ms' },
      {
        suite: SUITE,
        name: `newest 50 msgs of ${large}`,
        value: atLarge.lastPageMs,
        unit: 'ms',
        baseline: { name: 'of 100', value: atSmall.lastPageMs },
        ratio: ratio(atLarge.lastPageMs, atSmall.lastPageMs),
        goal: '≤ 2',
        met: ratio(atLarge.lastPageMs, atSmall.lastPageMs) <= 2,
      },
      {
        suite: SUITE,
        name: `list ${context.quick ? '2k' : '10k'} msgs with 20 KB tool outputs, no payloads`,
        value: tools.lightMs,
        unit: 'ms',
        baseline: { name: 'with payloads', value: tools.fullMs },
        ratio: ratio(tools.fullMs, tools.lightMs),
        goal: '< 50 ms',
        met: tools.lightMs < 50,
      },
      { suite: SUITE, name: 'store file per 1 KB message', value: sizeBytes / (small + mid + large), unit: 'bytes', note: 'database + WAL, all sessions' },
    ];
    return results;
  },
};

export default suite;
