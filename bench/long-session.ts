import type { Store } from '../src/store/index.js';

/**
 * The long session the browser and paged-history suites read: `turns` turns of a typed input, a
 * tool call, a 2 KB tool output and a reply (4 messages a turn). Returns the session's id.
 */
export async function seedLongSession(store: Store, turns: number, workdir?: string): Promise<string> {
  const session = await store.createSession({ title: 'Long session', ...(workdir === undefined ? {} : { workdir }) });
  const output = 'o'.repeat(2048);
  for (let turn = 0; turn < turns; turn++) {
    await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: `question ${turn}: what about part ${turn}?` }] });
    await store.appendMessage({
      sessionId: session.id,
      role: 'assistant',
      parts: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'bash', input: { command: `ls part-${turn}` } }],
    });
    await store.appendMessage({
      sessionId: session.id,
      role: 'tool',
      kind: 'tool_result',
      parts: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'bash', output: { type: 'text', value: output } }],
    });
    await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: `answer ${turn}` }] });
  }
  return session.id;
}
