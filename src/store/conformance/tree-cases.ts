import { expect } from 'vitest';
import type { Store } from '../store.js';
import { expectCode, text } from './conformance-context.js';
import type { ConformanceCase } from './run-store-conformance.js';

async function conversation(store: Store, turns: number) {
  const session = await store.createSession({ title: 'Parent' });
  const ids: string[] = [];
  for (let index = 0; index < turns; index++) {
    ids.push((await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text(`q${index}`)] })).message.id);
    ids.push((await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text(`a${index}`)] })).message.id);
  }
  return { session: await store.getSession(session.id), ids };
}

export const treeCases: Record<string, ConformanceCase> = {
  async 'moving the head back hides messages without deleting them, and redo brings them back'(harness) {
    const { store } = harness();
    const { session, ids } = await conversation(store, 3);
    const { session: rewound, entry } = await store.moveHead({ sessionId: session.id, to: ids[1]!, reason: 'rewind', bumpGeneration: true });
    expect(rewound.headMessageId).toBe(ids[1]);
    expect(rewound.branchGeneration).toBe(1);
    expect(entry).toMatchObject({ type: 'head-move', data: { from: ids[5], to: ids[1], reason: 'rewind', branchGeneration: 1 } });
    expect((await store.history(session.id)).map((message) => message.id)).toEqual(ids.slice(0, 2));
    expect((await store.listTreeMessages(session.treeId)).map((message) => message.id)).toEqual(ids);
    await store.moveHead({ sessionId: session.id, to: ids[5]!, reason: 'redo' });
    expect((await store.history(session.id)).map((message) => message.id)).toEqual(ids);
    expect((await store.getSession(session.id)).branchGeneration).toBe(1);
  },

  async 'appending after a rewind grows a new branch beside the old one'(harness) {
    const { store } = harness();
    const { session, ids } = await conversation(store, 2);
    await store.moveHead({ sessionId: session.id, to: ids[1]!, reason: 'rewind', bumpGeneration: true });
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('q1 again')] });
    expect(message.parentId).toBe(ids[1]);
    expect((await store.children(ids[1]!)).map((child) => child.id)).toEqual([ids[2], message.id]);
    expect((await store.history(session.id)).map((entry) => entry.id)).toEqual([ids[0], ids[1], message.id]);
  },

  async 'rewinding to before the first message empties the history of the same session'(harness) {
    const { store } = harness();
    const { session, ids } = await conversation(store, 1);
    const { session: empty } = await store.moveHead({ sessionId: session.id, to: null, reason: 'rewind', bumpGeneration: true });
    expect(empty).toMatchObject({ id: session.id, title: 'Parent', createdAt: session.createdAt, headMessageId: null });
    expect(await store.history(session.id)).toEqual([]);
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('fresh start')] });
    expect(message.parentId).toBeNull();
    expect(message.treeId).toBe(session.treeId);
    await store.moveHead({ sessionId: session.id, to: ids[1]!, reason: 'redo' });
    expect(await store.history(session.id)).toHaveLength(2);
  },

  async 'a head cannot move to a message of another tree, nor on a stale expectation'(harness) {
    const { store } = harness();
    const one = await conversation(store, 1);
    const two = await conversation(store, 1);
    await expectCode(store.moveHead({ sessionId: one.session.id, to: two.ids[0]!, reason: 'rewind' }), 'MESSAGE_NOT_IN_TREE');
    await expectCode(store.moveHead({ sessionId: one.session.id, to: 'msg_nope', reason: 'rewind' }), 'MESSAGE_NOT_FOUND');
    await expectCode(store.moveHead({ sessionId: one.session.id, to: one.ids[0]!, reason: 'rewind', expectedFrom: one.ids[0]! }), 'HEAD_MOVED');
    const after = await store.getSession(one.session.id);
    expect(after.headMessageId).toBe(one.ids[1]);
    expect(after.branchGeneration).toBe(0);
    expect(await store.listEntries(one.session.id, { type: 'head-move' })).toEqual([]);
  },

  async 'a fork shares the ancestors and diverges independently'(harness) {
    const { store } = harness();
    const { session, ids } = await conversation(store, 2);
    const { session: child, created } = await store.forkSession({ parentSessionId: session.id, at: ids[1]!, kind: 'fork' });
    expect(created).toBe(true);
    expect(child).toMatchObject({
      kind: 'fork',
      title: 'Fork of Parent',
      parentSessionId: session.id,
      rootSessionId: session.id,
      treeId: session.treeId,
      headMessageId: ids[1],
      forkedFromMessageId: ids[1],
    });
    expect((await store.history(child.id)).map((message) => message.id)).toEqual(ids.slice(0, 2));
    const { message } = await store.appendMessage({ sessionId: child.id, role: 'user', parts: [text('other way')] });
    expect((await store.history(session.id)).map((entry) => entry.id)).toEqual(ids);
    expect((await store.history(child.id)).map((entry) => entry.id)).toEqual([ids[0], ids[1], message.id]);
    expect((await store.listEntries(child.id, { type: 'head-move' }))[0]?.data).toMatchObject({ reason: 'fork', to: ids[1] });
    expect((await store.listSessions({ parentSessionId: session.id })).map((entry) => entry.id)).toEqual([child.id]);
    const grandchild = await store.forkSession({ parentSessionId: child.id, at: message.id, kind: 'side_chat' });
    expect(grandchild.session).toMatchObject({ title: 'Selection side chat', rootSessionId: session.id, kind: 'side_chat' });
  },

  async 'a fork writes its entries and notes in the same transaction and is idempotent by command id'(harness) {
    const { store } = harness();
    const { session, ids } = await conversation(store, 1);
    const input = {
      parentSessionId: session.id,
      at: ids[1]!,
      kind: 'fork' as const,
      commandId: 'cmd_fork_1',
      entries: [{ type: 'model-choice', data: { model: 'scripted' } }],
      messages: [{ role: 'user' as const, kind: 'fork_note' as const, parts: [text('This conversation was forked.')], metadata: { visibility: 'model' } }],
    };
    const first = await store.forkSession(input);
    const second = await store.forkSession(input);
    expect(second).toEqual({ session: first.session, created: false });
    expect(await store.listSessions({ parentSessionId: session.id })).toHaveLength(1);
    const history = await store.history(first.session.id);
    expect(history.map((message) => message.kind)).toEqual(['input', 'reply', 'fork_note']);
    expect((await store.listEntries(first.session.id, { type: 'model-choice' }))[0]?.data).toEqual({ model: 'scripted' });
    expect(await store.getCommandFact('cmd_fork_1')).toMatchObject({ commandId: 'cmd_fork_1', kind: 'session-fork' });
  },

  async 'a fork at a message of another tree is refused and creates nothing'(harness) {
    const { store } = harness();
    const one = await conversation(store, 1);
    const two = await conversation(store, 1);
    await expectCode(store.forkSession({ parentSessionId: one.session.id, at: two.ids[0]!, kind: 'fork' }), 'MESSAGE_NOT_IN_TREE');
    await expectCode(store.forkSession({ parentSessionId: 'ses_nope', at: null, kind: 'fork' }), 'SESSION_NOT_FOUND');
    expect(await store.listSessions()).toHaveLength(2);
  },

  async 'deleting a session keeps every message another session still needs'(harness) {
    const { store } = harness();
    const { session, ids } = await conversation(store, 2);
    const { session: child } = await store.forkSession({ parentSessionId: session.id, at: ids[1]!, kind: 'fork' });
    const childReply = await store.appendMessage({ sessionId: child.id, role: 'user', parts: [text('child')] });
    await store.addCheckpoints([{ sessionId: session.id, op: 'create', path: 'a.txt', beforeHash: null, afterHash: 'a'.repeat(64), source: 'tool' }]);
    await store.deleteSession(session.id);
    await expectCode(store.getSession(session.id), 'SESSION_NOT_FOUND');
    expect((await store.history(child.id)).map((message) => message.id)).toEqual([ids[0], ids[1], childReply.message.id]);
    expect(await store.findMessage(ids[2]!)).toBeNull();
    expect(await store.findMessage(ids[3]!)).toBeNull();
    expect((await store.getSession(child.id)).parentSessionId).toBeNull();
    expect(await store.blobRoots()).toEqual(new Set());
  },
};
