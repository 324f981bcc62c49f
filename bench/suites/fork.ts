/**
 * Fork budgets: a fork costs the same at 100 and at 100k messages (ancestors are shared, not
 * copied). The isolated fork of a 10k-file workspace is the `isolated-fork` suite.
 */
import { join } from 'node:path';
import { pinTurnBoundary, SessionForker } from '../../src/fork/index.js';
import { SqliteStore, type Store } from '../../src/store/index.js';
import { timeMedian, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'fork';

/** A session of `turns` complete turns (input, tool call, tool output, reply carrying its execution state); the last boundary pinned. */
async function conversation(store: Store, turns: number) {
  const { id } = await store.createSession({ title: 'long' });
  await store.appendEntry(id, { type: 'model-choice', data: { model: 'large' } });
  let reply = '';
  let turnId = '';
  for (let turn = 0; turn < turns; turn++) {
    const { message } = await store.appendMessage({ sessionId: id, role: 'user', parts: [{ type: 'text', text: `question ${turn}` }] });
    const last = turn === turns - 1;
    if (last) turnId = (await store.createTurn({ sessionId: id, userMessageId: message.id })).id;
    await store.appendMessage({
      sessionId: id,
      role: 'assistant',
      parts: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'bash', input: { command: 'ls' } }],
    });
    await store.appendMessage({
      sessionId: id,
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'bash', output: { type: 'text', value: 'o'.repeat(200) } }],
    });
    reply = (
      await store.appendMessage({
        sessionId: id,
        role: 'assistant',
        ...(last ? { turnId } : {}),
        parts: [{ type: 'text', text: `answer ${turn}` }],
        metadata: { executionState: { mode: 'auto' } },
      })
    ).message.id;
  }
  await pinTurnBoundary(store, turnId);
  await store.updateTurn(turnId, { status: 'complete', endedAt: Date.now() });
  return { sessionId: id, reply };
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const results: BenchResult[] = [];
    const store = await SqliteStore.open({ path: join(context.tempDir(), 'store', 'fork.db') });
    const forker = new SessionForker({ store });

    // 1. Fork cost against history length.
    const small = await conversation(store, 25);
    const large = await conversation(store, context.quick ? 2_500 : 25_000);
    const largeCount = (context.quick ? 2_500 : 25_000) * 4;
    for (const from of ['message', 'stable', 'side-chat'] as const) {
      const fork = (session: { sessionId: string; reply: string }) => () =>
        from === 'side-chat'
          ? forker.fork({ from, sessionId: session.sessionId })
          : forker.fork({ from, sessionId: session.sessionId, messageId: session.reply });
      const smallMs = await timeMedian(fork(small), 31, 5);
      const largeMs = await timeMedian(fork(large), 31, 5);
      const ratio = largeMs / smallMs;
      results.push({
        suite: SUITE,
        name: `${from} fork at ${largeCount} msgs`,
        value: largeMs,
        unit: 'ms',
        baseline: { name: 'at 100 msgs', value: smallMs },
        ratio,
        goal: '≤ 2',
        met: ratio <= 2,
      });
    }

    await store.close();
    return results;
  },
};

export default suite;
