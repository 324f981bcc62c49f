import { join } from 'node:path';
import WebSocket from 'ws';
import { openWaypoint } from '../../src/engine/index.js';
import { listRewindTargets } from '../../src/history/index.js';
import { createRuntime, ScriptedModel } from '../../src/runtime/index.js';
import { startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { timeMedian, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'serve';
const PAGE = 50;

/** A session of `turns` turns: an input, a tool call, a tool output of `outputBytes`, a reply (4 messages a turn). */
async function session(store: Store, workdir: string, turns: number, outputBytes: number): Promise<string> {
  const { id } = await store.createSession({ workdir, title: 'bench' });
  const output = 'o'.repeat(outputBytes);
  for (let turn = 0; turn < turns; turn++) {
    await store.appendMessage({ sessionId: id, role: 'user', kind: 'input', parts: [{ type: 'text', text: `question ${turn}` }] });
    await store.appendMessage({
      sessionId: id,
      role: 'assistant',
      kind: 'reply',
      parts: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'bash', input: { command: 'ls' } }],
    });
    await store.appendMessage({
      sessionId: id,
      role: 'tool',
      kind: 'tool_result',
      parts: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'bash', output: { type: 'text', value: output } }],
    });
    await store.appendMessage({ sessionId: id, role: 'assistant', kind: 'reply', parts: [{ type: 'text', text: `answer ${turn}` }] });
  }
  return id;
}

/** A protocol client: one request at a time, timed from send to the parsed reply. */
function client(url: string): Promise<{ call(method: string, params: unknown): Promise<unknown>; close(): void }> {
  const socket = new WebSocket(url);
  let next = 1;
  const pending = new Map<number, (value: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  return new Promise((done, fail) => {
    socket.once('error', fail);
    socket.once('open', () =>
      done({
        call(method, params) {
          const id = next++;
          return new Promise((answer, refuse) => {
            pending.set(id, (reply) => ((reply as { error?: unknown }).error ? refuse(new Error(JSON.stringify(reply))) : answer(reply)));
            socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
          });
        },
        close: () => socket.close(),
      }),
    );
  });
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const dir = context.tempDir();
    const waypoint = await openWaypoint({ path: join(dir, 'store', 'waypoint.db') });
    const turns = context.quick ? 500 : 2_500;
    const sessionId = await session(waypoint.store, dir, turns, 20_000);
    const runtime = createRuntime({ waypoint, model: ScriptedModel.fromSteps([]), idleCompression: false });
    const server = await startServer({ waypoint, runtime, webRoot: join(dir, 'web'), version: 'bench' });
    const rpc = await client(`ws://127.0.0.1:${server.port}/rpc?token=${server.token}`);
    const { store } = waypoint;
    const pageMs = await timeMedian(() => rpc.call('conversation.page', { sessionId, limit: PAGE }), 9, 2);
    const pageBaseline = await timeMedian(() => store.history(sessionId, { last: PAGE }), 9, 2);
    const listBaseline = await timeMedian(() => listRewindTargets(store, sessionId), 9, 2);
    // First open: the kept list is made stale before each call by a head move that bumps the branch
    // generation (its own cost measured apart and taken off).
    const coldMs = await timeMedian(
      async () => {
        await waypoint.store.moveHead({ sessionId, to: (await waypoint.store.getSession(sessionId)).headMessageId, reason: 'bench', bumpGeneration: true });
        await rpc.call('rewind.list', { sessionId });
      },
      5,
      1,
    );
    const moveOnly = await timeMedian(
      async () => {
        await waypoint.store.moveHead({ sessionId, to: (await waypoint.store.getSession(sessionId)).headMessageId, reason: 'bench', bumpGeneration: true });
      },
      5,
      1,
    );
    await rpc.call('session.subscribe', { sessionId });
    await rpc.call('rewind.list', { sessionId });
    const listMs = await timeMedian(() => rpc.call('rewind.list', { sessionId }), 9, 2);
    rpc.close();
    await server.close();
    await runtime.close();
    await waypoint.close();
    const messages = `${turns * 4} msgs`;
    const results: BenchResult[] = [
      {
        suite: SUITE,
        name: `newest page (${PAGE}) of ${messages} over the protocol`,
        value: pageMs,
        unit: 'ms',
        baseline: { name: `the newest ${PAGE} rows read from the store`, value: pageBaseline },
        ratio: pageMs / pageBaseline,
        goal: '< 1000 ms (the UI renders it within 1 s)',
        met: pageMs < 1000,
        note: 'visibility and compaction over the whole path without payloads; the page loaded without tool outputs',
      },
      {
        suite: SUITE,
        name: `/rewind list of ${messages} over the protocol, first open (read from the store)`,
        value: coldMs - moveOnly,
        unit: 'ms',
        baseline: { name: 'listRewindTargets from the store', value: listBaseline },
        ratio: (coldMs - moveOnly) / listBaseline,
        goal: '≤ 1.5× the store read',
        met: (coldMs - moveOnly) / listBaseline <= 1.5,
        note: 'the floor is the store reading the path (engine)',
      },
      {
        suite: SUITE,
        name: `/rewind list of ${messages} over the protocol, opened in a subscribed tab`,
        value: listMs,
        unit: 'ms',
        baseline: { name: 'listRewindTargets from the store', value: listBaseline },
        ratio: listMs / listBaseline,
        goal: '< 100 ms',
        met: listMs < 100,
        note: `${turns} inputs with their file-change counts, read when the tab subscribed; tool outputs (20 KB each) never loaded`,
      },
    ];
    return results;
  },
};

export default suite;
