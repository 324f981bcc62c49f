import { expect } from 'vitest';
import { isId } from '../../model/index.js';
import { expectCode, text } from './conformance-context.js';
import type { ConformanceCase } from './run-store-conformance.js';

export const sessionCases: Record<string, ConformanceCase> = {
  async 'a new session is a main session with an empty history'(harness) {
    const { store } = harness();
    const session = await store.createSession({ title: 'Refactor', workdir: '/tmp/project', gitBranch: 'main', metadata: { owner: 'ada' } });
    expect(isId('session', session.id)).toBe(true);
    expect(session).toMatchObject({
      kind: 'main',
      title: 'Refactor',
      headMessageId: null,
      parentSessionId: null,
      rootSessionId: session.id,
      branchGeneration: 0,
      workdir: '/tmp/project',
      gitBranch: 'main',
      metadata: { owner: 'ada' },
    });
    expect(await store.history(session.id)).toEqual([]);
    expect(await store.getSession(session.id)).toEqual(session);
  },

  async 'unknown session ids raise SESSION_NOT_FOUND and find returns null'(harness) {
    const { store } = harness();
    await expectCode(store.getSession('ses_nope'), 'SESSION_NOT_FOUND');
    await expectCode(store.history('ses_nope'), 'SESSION_NOT_FOUND');
    await expectCode(store.appendMessage({ sessionId: 'ses_nope', role: 'user', parts: [text('hi')] }), 'SESSION_NOT_FOUND');
    await expectCode(store.setTitle('ses_nope', 'x'), 'SESSION_NOT_FOUND');
    await expectCode(store.moveHead({ sessionId: 'ses_nope', to: null, reason: 'rewind' }), 'SESSION_NOT_FOUND');
    expect(await store.findSession('ses_nope')).toBeNull();
    expect(await store.listSessions()).toEqual([]);
  },

  async 'titles are append-only entries and the latest wins'(harness) {
    const { store } = harness();
    const session = await store.createSession({ title: 'First' });
    await store.setTitle(session.id, 'Second');
    const updated = await store.setTitle(session.id, 'Third');
    expect(updated.title).toBe('Third');
    expect((await store.getSession(session.id)).title).toBe('Third');
    const titles = await store.listEntries(session.id, { type: 'title' });
    expect(titles.map((entry) => entry.data.title)).toEqual(['First', 'Second', 'Third']);
  },

  async 'session metadata patches merge and are recorded'(harness) {
    const { store } = harness();
    const session = await store.createSession({ metadata: { a: 1 } });
    const patched = await store.patchSessionMetadata(session.id, { b: 'two' });
    expect(patched.metadata).toEqual({ a: 1, b: 'two' });
    expect((await store.getSession(session.id)).metadata).toEqual({ a: 1, b: 'two' });
    expect((await store.listEntries(session.id, { type: 'metadata' })).length).toBe(1);
  },

  async 'an explicit id that already exists is refused'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    await expectCode(store.createSession({ id: session.id }), 'SESSION_EXISTS');
    expect(await store.listSessions()).toHaveLength(1);
  },

  async 'sessions persist across a reopen'(harness) {
    const { store } = harness();
    const session = await store.createSession({ title: 'Kept' });
    await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('hello')] });
    const reopened = await harness().reopen();
    const again = await reopened.getSession(session.id);
    expect(again.title).toBe('Kept');
    expect((await reopened.history(session.id)).map((message) => message.parts[0]?.content)).toEqual([text('hello')]);
  },

  async 'entries get increasing sequence numbers and filter by type'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const first = await store.appendEntry(session.id, { type: 'model-choice', data: { model: 'a' } });
    const second = await store.appendEntry(session.id, { type: 'model-choice', data: { model: 'b' } });
    await store.appendEntry(session.id, { type: 'goal', data: { text: 'ship' } });
    expect(second.seq).toBeGreaterThan(first.seq);
    const choices = await store.listEntries(session.id, { type: 'model-choice' });
    expect(choices.map((entry) => entry.data.model)).toEqual(['a', 'b']);
    expect((await store.listEntries(session.id, { type: 'model-choice', last: 1 }))[0]?.data.model).toBe('b');
    expect(await store.listEntries(session.id, { afterSeq: second.seq })).toHaveLength(1);
    await expectCode(store.appendEntry('ses_nope', { type: 'x', data: {} }), 'SESSION_NOT_FOUND');
  },
};
