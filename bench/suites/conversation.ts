import { join } from 'node:path';
import { listRewindTargets } from '../../src/history/index.js';
import { rewindConversation, redoConversation } from '../../src/rewind/conversation/index.js';
import { SqliteStore, type Store } from '../../src/store/index.js';
import { timeMedian, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'conversation';

/** A session of `turns` turns: user input, then a tool call and a large tool output, then a reply. */
async function session(store: Store, turns: number, toolOutputBytes: number) {
  const { id } = await store.createSession();
  const output = 'o'.repeat(toolOutputBytes);
  const inputs: string[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const { message } = await store.appendMessage({ sessionId: id, role: 'user', parts: [{ type: 'text', text: `question ${turn}` }] });
    inputs.push(message.id);
    await store.appendMessage({
      sessionId: id,
      role: 'assistant',
      parts: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'bash', input: { command: 'ls' } }],
    });
    await store.appendMessage({
      sessionId: id,
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'bash', output: { type: 'text', value: output } }],
    });
    await store.appendMessage({ sessionId: id, role: 'assistant', parts: [{ type: 'text', text: `answer ${turn}` }] });
  }
  return { sessionId: id, inputs };
}

/** Rewind to the last input and redo, alternately: the cost of one rewind at this history length. */
async function rewindCost(store: Store, sessionId: string, inputs: string[]): Promise<number> {
  const target = inputs.at(-1)!;
  let rewound = false;
  return timeMedian(
    async () => {
      if (rewound) await redoConversation(store, sessionId);
      else await rewindConversation(store, { sessionId, messageId: target });
      rewound = !rewound;
    },
    101,
    5,
  );
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const store = await SqliteStore.open({ path: join(context.tempDir(), 'conversation.db') });
    const small = await session(store, 25, 200);
    const large = await session(store, context.quick ? 2_500 : 25_000, 200);
    const smallMs = await rewindCost(store, small.sessionId, small.inputs);
    const largeMs = await rewindCost(store, large.sessionId, large.inputs);
    const listing = await session(store, 2_500, 20_000);
    const listMs = await timeMedian(() => listRewindTargets(store, listing.sessionId), 7, 1);
    await store.close();
    const messages = (count: number) => `${count * 4} msgs`;
    const ratio = largeMs / smallMs;
    const results: BenchResult[] = [
      {
        suite: SUITE,
        name: `rewind + redo at ${messages(large.inputs.length)}`,
        value: largeMs,
        unit: 'ms',
        baseline: { name: `at ${messages(small.inputs.length)}`, value: smallMs },
        ratio,
        goal: '≤ 2',
        met: ratio <= 2,
      },
      {
        suite: SUITE,
        name: 'rewind targets of 10k msgs with 20 KB tool outputs',
        value: listMs,
        unit: 'ms',
        goal: '< 50 ms',
        met: listMs < 50,
        note: '2,500 user inputs listed with their text',
      },
    ];
    return results;
  },
};

export default suite;
