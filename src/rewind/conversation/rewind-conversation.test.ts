import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../model/index.js';
import { expectCode } from '../../store/conformance/index.js';
import { SqliteStore, type Store } from '../../store/index.js';
import type { ConversationEvents } from './conversation-events.js';
import { findRedo, redoConversation } from './redo-conversation.js';
import { rewindConversation } from './rewind-conversation.js';
import { TaskRegistry } from './task-registry.js';

describe('conversation rewind', () => {
  let dir: string;
  let path: string;
  let store: Store;
  let sessionId: string;
  let ids: Record<string, string>;

  async function turn(name: string, withTurn = true) {
    const { message: input } = await store.appendMessage({ sessionId, role: 'user', parts: [{ type: 'text', text: `${name} as typed, with @src/a.ts` }] });
    const turnRecord = withTurn ? await store.createTurn({ sessionId, userMessageId: input.id }) : null;
    const { message: reply } = await store.appendMessage({
      sessionId,
      role: 'assistant',
      parts: [{ type: 'text', text: `reply to ${name}` }],
      turnId: turnRecord?.id ?? null,
    });
    ids[`u${name}`] = input.id;
    ids[`a${name}`] = reply.id;
    if (turnRecord) ids[`t${name}`] = turnRecord.id;
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-conv-'));
    path = join(dir, 'store.db');
    store = await SqliteStore.open({ path });
    sessionId = (await store.createSession({ title: 'Kept title' })).id;
    ids = {};
    for (const name of ['1', '2', '3']) await turn(name);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const texts = async () => (await store.history(sessionId)).map((message) => message.parts[0]?.content?.text);

  it('moves the head before the target input, returns the draft as typed, deletes nothing', async () => {
    const events = new EventBus<ConversationEvents>();
    const seen: string[] = [];
    events.on('rewind-trigger', (event) => seen.push(event.targetMessageId));
    const result = await rewindConversation(store, { sessionId, messageId: ids.u2!, events });
    expect(result.draft).toBe('2 as typed, with @src/a.ts');
    expect(await texts()).toEqual(['1 as typed, with @src/a.ts', 'reply to 1']);
    expect(result.session.branchGeneration).toBe(1);
    expect(seen).toEqual([ids.u2]);
    expect(await store.listTreeMessages(result.session.treeId)).toHaveLength(6);
    // A failed conversation rewind emits nothing (the UI must not cut what the store kept).
    await expectCode(rewindConversation(store, { sessionId, messageId: ids.u3!, events }), 'REWIND_TARGET_NOT_ON_PATH');
    const stuck = new TaskRegistry();
    stuck.register({ id: 'stuck', sessionId, turnId: ids.t1!, branchGeneration: 1, stop: async () => false });
    await expectCode(rewindConversation(store, { sessionId, messageId: ids.u1!, events, tasks: stuck }), 'TASK_STOP_FAILED');
    expect(seen).toEqual([ids.u2]);
  });

  it('rewinding to the first input leaves an empty history in the same session, metadata kept', async () => {
    const before = await store.getSession(sessionId);
    const { session } = await rewindConversation(store, { sessionId, messageId: ids.u1! });
    expect(await store.history(sessionId)).toEqual([]);
    expect(session).toMatchObject({ id: sessionId, title: 'Kept title', createdAt: before.createdAt, gitBranch: before.gitBranch });
  });

  it('maps a reply to its turn input only for conversation-only rewinds (retry)', async () => {
    await expectCode(rewindConversation(store, { sessionId, messageId: ids.a3! }), 'REWIND_TARGET_NOT_USER_INPUT');
    const { target } = await rewindConversation(store, { sessionId, messageId: ids.a3!, mapAssistant: true, reason: 'retry' });
    expect(target.id).toBe(ids.u3);
  });

  it('refuses summaries, hook messages, task notifications and cut-off messages, and changes nothing', async () => {
    const { message: summary } = await store.appendMessage({ sessionId, role: 'user', kind: 'summary', parts: [{ type: 'text', text: 's' }] });
    const { message: hook } = await store.appendMessage({
      sessionId,
      role: 'user',
      kind: 'meta',
      parts: [{ type: 'text', text: 'h' }],
      metadata: { visibility: 'model' },
    });
    const { message: note } = await store.appendMessage({ sessionId, role: 'user', kind: 'task_notification', parts: [{ type: 'text', text: 'n' }] });
    for (const messageId of [summary.id, hook.id, note.id]) {
      await expectCode(rewindConversation(store, { sessionId, messageId, mapAssistant: true }), 'REWIND_TARGET_NOT_USER_INPUT');
    }
    await rewindConversation(store, { sessionId, messageId: ids.u3! });
    await expectCode(rewindConversation(store, { sessionId, messageId: ids.u3! }), 'REWIND_TARGET_NOT_ON_PATH');
    await expectCode(rewindConversation(store, { sessionId, messageId: 'msg_nope' }), 'MESSAGE_NOT_FOUND');
    expect((await store.getSession(sessionId)).branchGeneration).toBe(1);
  });

  it('stops the background tasks of the cut turns first; one that will not stop fails the rewind whole', async () => {
    const tasks = new TaskRegistry();
    const stopped: string[] = [];
    tasks.register({
      id: 'keep',
      sessionId,
      turnId: ids.t1!,
      branchGeneration: 0,
      stop: async () => {
        stopped.push('keep');
        return true;
      },
    });
    tasks.register({
      id: 'bg2',
      sessionId,
      turnId: ids.t2!,
      branchGeneration: 0,
      stop: async () => {
        stopped.push('bg2');
        return true;
      },
    });
    tasks.register({ id: 'stuck', sessionId, turnId: ids.t3!, branchGeneration: 0, stop: async () => false });
    const error = await expectCode(rewindConversation(store, { sessionId, messageId: ids.u2!, tasks }), 'TASK_STOP_FAILED');
    expect(error.message).toContain('stuck');
    expect(await texts()).toHaveLength(6);
    expect((await store.getSession(sessionId)).branchGeneration).toBe(0);

    const ok = await rewindConversation(store, { sessionId, messageId: ids.u3!, tasks: new TaskRegistry() });
    expect(ok.stoppedTasks).toEqual([]);
    const registry = new TaskRegistry();
    registry.register({ id: 'late', sessionId, turnId: ids.t2!, branchGeneration: ok.session.branchGeneration, stop: async () => true });
    const { stoppedTasks, session } = await rewindConversation(store, { sessionId, messageId: ids.u2!, tasks: registry });
    expect(stoppedTasks).toEqual(['late']);
    expect(registry.acceptsResult({ sessionId, branchGeneration: ok.session.branchGeneration })).toBe(false);
    expect(registry.acceptsResult({ sessionId, branchGeneration: session.branchGeneration })).toBe(true);
  });

  it('redo returns the head across a restart, and is refused once the conversation moved on', async () => {
    await rewindConversation(store, { sessionId, messageId: ids.u3! });
    await rewindConversation(store, { sessionId, messageId: ids.u2! });
    await store.close();
    store = await SqliteStore.open({ path });
    await redoConversation(store, sessionId);
    expect(await texts()).toHaveLength(4);
    await redoConversation(store, sessionId);
    expect(await texts()).toHaveLength(6);
    await expectCode(redoConversation(store, sessionId), 'NOTHING_TO_REDO');
    await rewindConversation(store, { sessionId, messageId: ids.u3! });
    await store.appendMessage({ sessionId, role: 'user', parts: [{ type: 'text', text: 'new direction' }] });
    expect(await findRedo(store, sessionId)).toBeNull();
    await expectCode(redoConversation(store, sessionId), 'NOTHING_TO_REDO');
  });
});
