import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type ServerFixture } from './server-harness.js';

const STEPS = [{ text: 'a1' }, { text: 'a2' }, { text: 'Summary: u1 and u2 were answered.' }, { text: 'a3' }, { text: 'a4' }];

let fx: ServerFixture;
let sessionId: string;

async function turn(text: string) {
  const started = await fx.client.ok('turn.send', { sessionId, text });
  await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
}

describe('the /rewind list and the page around a compaction and system messages', () => {
  beforeAll(async () => {
    fx = await startFixture(STEPS);
    sessionId = (await fx.client.ok('sessions.create', { workdir: fx.project })).session.id;
    await fx.client.ok('session.subscribe', { sessionId });
    await turn('u1');
    await turn('u2');
    await fx.client.ok('turn.compact', { sessionId });
    await turn('u3');
    // What a hook injects (model-only) and a background task's notification: never rewind targets.
    const { store } = fx.waypoint;
    const head = (await store.getSession(sessionId)).headMessageId;
    await store.appendMessage({
      sessionId,
      role: 'user',
      kind: 'meta',
      parts: [{ type: 'text', text: 'hook context' }],
      metadata: { visibility: 'model' },
      expectedHeadId: head,
    });
    await store.appendMessage({ sessionId, role: 'user', kind: 'task_notification', parts: [{ type: 'text', text: 'task 1 finished' }] });
    await turn('u4');
  });
  afterAll(async () => fx?.close());

  it('lists every typed input, those before the compaction marked, no meta or task notification', async () => {
    const list = await fx.client.ok('rewind.list', { sessionId });
    expect(list.targets.map((target: { text: string; compacted: boolean }) => `${target.text}${target.compacted ? ' (compacted)' : ''}`)).toEqual([
      'u1 (compacted)',
      'u2 (compacted)',
      'u3',
      'u4',
    ]);
  });

  it('pages the whole conversation as shown: compacted marks, the summary where it was made, model-only messages left out', async () => {
    const page = await fx.client.ok('conversation.page', { sessionId });
    const shown = page.messages.map((message: { kind: string; compacted: boolean; parts: Array<{ text?: string }> }) =>
      message.kind === 'summary' ? 'summary' : `${message.parts[0]?.text ?? message.kind}${message.compacted ? '*' : ''}`,
    );
    expect(shown).toEqual(['u1*', 'a1*', 'u2*', 'a2*', 'summary', 'u3', 'a3', 'task 1 finished', 'u4', 'a4']);
    const summary = page.messages.find((message: { kind: string }) => message.kind === 'summary');
    expect(summary.summaryOf).toBe(4);
    expect(page.modelStartsAt).toBe(summary.id);
  });

  it('a rewind to an input before the compaction works and hands back its draft; the compaction is gone from the page', async () => {
    const list = await fx.client.ok('rewind.list', { sessionId });
    const result = await fx.client.ok('rewind.run', { sessionId, messageId: list.targets[1].messageId, scope: 'conversation' });
    expect(result.conversation.draft).toBe('u2');
    const page = await fx.client.ok('conversation.page', { sessionId });
    expect(
      page.messages.map((message: { compacted: boolean; parts: Array<{ text?: string }> }) => `${message.parts[0]?.text}${message.compacted ? '*' : ''}`),
    ).toEqual(['u1', 'a1']);
    expect(page.modelStartsAt).toBeNull();
    expect((await fx.client.ok('rewind.list', { sessionId })).targets.map((target: { text: string }) => target.text)).toEqual(['u1']);
  });
});
