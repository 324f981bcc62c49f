import { expect } from 'vitest';
import { isId } from '../../model/index.js';
import { expectCode, text } from './conformance-context.js';
import type { ConformanceCase } from './run-store-conformance.js';

export const messageCases: Record<string, ConformanceCase> = {
  async 'appending moves the head and chains parents'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const first = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('one')] });
    const second = await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('two')] });
    expect(isId('message', first.message.id)).toBe(true);
    expect(first.message).toMatchObject({ parentId: null, depth: 0, kind: 'input', status: 'complete', sessionId: session.id });
    expect(second.message).toMatchObject({ parentId: first.message.id, depth: 1, kind: 'reply' });
    expect(second.session.headMessageId).toBe(second.message.id);
    const history = await store.history(session.id);
    expect(history.map((message) => message.id)).toEqual([first.message.id, second.message.id]);
  },

  async 'parts round-trip exactly, in order'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const parts = [
      text('héllo 🌍\nline two'),
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'write', input: { path: 'a.txt', content: 'x', nested: [1, null, true] } },
      { type: 'reasoning', text: '' },
    ];
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'assistant', parts, metadata: { model: 'm' } });
    const read = await store.getMessage(message.id);
    expect(read.parts.map((part) => part.content)).toEqual(parts);
    expect(read.parts.map((part) => part.index)).toEqual([0, 1, 2]);
    expect(read.metadata).toEqual({ model: 'm' });
  },

  async 'history without payloads carries part types and sizes but no content'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const big = 'x'.repeat(50_000);
    await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('run it')] });
    await store.appendMessage({ sessionId: session.id, role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c', toolName: 'bash', output: big }] });
    const light = await store.history(session.id, { parts: 'none' });
    expect(light).toHaveLength(2);
    expect(light[1]!.parts[0]).toMatchObject({ type: 'tool-result' });
    expect(light[1]!.parts[0]!.content).toBeUndefined();
    expect(light[1]!.parts[0]!.size).toBeGreaterThan(50_000);
    const full = await store.history(session.id);
    expect(full[1]!.parts[0]!.content?.output).toBe(big);
  },

  async 'history pages by depth and by the newest N'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const ids: string[] = [];
    for (let index = 0; index < 10; index++) {
      ids.push((await store.appendMessage({ sessionId: session.id, role: index % 2 ? 'assistant' : 'user', parts: [text(`m${index}`)] })).message.id);
    }
    expect((await store.history(session.id, { last: 3 })).map((message) => message.id)).toEqual(ids.slice(7));
    expect((await store.history(session.id, { fromDepth: 2, toDepth: 5 })).map((message) => message.id)).toEqual(ids.slice(2, 5));
    expect((await store.history(session.id, { toDepth: 4, last: 2 })).map((message) => message.id)).toEqual(ids.slice(2, 4));
    expect(await store.history(session.id, { fromDepth: 10 })).toEqual([]);
    expect((await store.history(session.id, { roles: ['assistant'], parts: 'none' })).map((message) => message.id)).toEqual(
      ids.filter((_, index) => index % 2 === 1),
    );
    expect((await store.history(session.id, { roles: ['user'], last: 4 })).map((message) => message.id)).toEqual([ids[6], ids[8]]);
    expect((await store.pathTo(ids[4]!)).map((message) => message.id)).toEqual(ids.slice(0, 5));
  },

  async 'a stale expected head is refused with HEAD_MOVED and changes nothing'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const first = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('a')] });
    await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('b')], expectedHeadId: first.message.id });
    await expectCode(store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('c')], expectedHeadId: first.message.id }), 'HEAD_MOVED');
    expect(await store.history(session.id)).toHaveLength(2);
    expect(await store.listTreeMessages(session.treeId)).toHaveLength(2);
  },

  async 'many messages read at once come back in the order asked'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const a = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('a')] });
    const b = await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('b')] });
    const both = await store.getMessages([b.message.id, a.message.id]);
    expect(both.map((message) => message.parts[0]?.content)).toEqual([text('b'), text('a')]);
    expect((await store.getMessages([a.message.id], { parts: 'none' }))[0]!.parts[0]!.content).toBeUndefined();
    await expectCode(store.getMessages([a.message.id, 'msg_nope']), 'MESSAGE_NOT_FOUND');
  },

  async 'unknown message ids raise MESSAGE_NOT_FOUND'(harness) {
    const { store } = harness();
    await expectCode(store.getMessage('msg_nope'), 'MESSAGE_NOT_FOUND');
    await expectCode(store.pathTo('msg_nope'), 'MESSAGE_NOT_FOUND');
    await expectCode(store.children('msg_nope'), 'MESSAGE_NOT_FOUND');
    expect(await store.findMessage('msg_nope')).toBeNull();
  },

  async 'a part without a type is refused and nothing is written'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const bad = [text('ok'), { text: 'no type' } as unknown as { type: string }];
    await expectCode(store.appendMessage({ sessionId: session.id, role: 'user', parts: bad }), 'INVALID_ARGUMENT');
    expect(await store.history(session.id)).toEqual([]);
    expect(await store.listTreeMessages(session.treeId)).toEqual([]);
  },

  async 'a streaming message may change until it is finished, then it is immutable'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'assistant', status: 'streaming', parts: [text('Hel')] });
    await store.replaceStreamingParts(message.id, [text('Hello')]);
    const finished = await store.finishMessage(message.id, 'complete', [text('Hello, world')]);
    expect(finished.status).toBe('complete');
    expect(finished.parts.map((part) => part.content)).toEqual([text('Hello, world')]);
    await expectCode(store.replaceStreamingParts(message.id, [text('changed')]), 'MESSAGE_IMMUTABLE');
    await expectCode(store.finishMessage(message.id, 'error'), 'MESSAGE_IMMUTABLE');
    expect((await store.getMessage(message.id)).parts.map((part) => part.content)).toEqual([text('Hello, world')]);
  },
};
