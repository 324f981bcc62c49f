import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXECUTION_STATE_ENTRY, GOAL_ENTRY, MODEL_CHOICE_ENTRY, SessionForker, VERIFICATION_ENTRY } from '../../src/fork/index.js';
import { createForkFixture, type ForkFixture } from './fork-fixture.js';

let fx: ForkFixture;
let forker: SessionForker;
beforeEach(async () => {
  fx = await createForkFixture();
  forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
});
afterEach(async () => fx.cleanup());

const entries = async (sessionId: string, type: string) => (await fx.store.listEntries(sessionId, { type })).map((entry) => entry.data);

describe('state copied into a fork', () => {
  it("model choice, the execution state of the range (not the parent's current), the goal without its active run, verification records before the boundary; never todos or queued input", async () => {
    await fx.store.appendEntry(fx.sessionId, { type: MODEL_CHOICE_ENTRY, data: { model: 'small' } });
    await fx.store.appendEntry(fx.sessionId, { type: MODEL_CHOICE_ENTRY, data: { model: 'large' } });
    await fx.store.appendEntry(fx.sessionId, {
      type: GOAL_ENTRY,
      data: { goal: { id: 'g1', objective: 'ship it', status: 'active', run: { runId: 'r1', leaseUntil: 1 } } },
    });
    // Verification recorded during the turn, before its boundary is pinned.
    const one = await fx.turn(
      'one',
      async (context) => {
        await fx.store.appendEntry(fx.sessionId, { type: VERIFICATION_ENTRY, data: { id: 'v1', messageId: context.anchorMessageId, passed: true } });
      },
      { metadata: { executionState: { mode: 'plan' } } },
    );
    await fx.store.appendEntry(fx.sessionId, { type: 'todo', data: { items: ['x'] } });
    await fx.store.appendEntry(fx.sessionId, { type: 'queued-input', data: { text: 'later' } });
    const two = await fx.turn('two', undefined, { metadata: { executionState: { mode: 'auto' } } });
    await fx.store.appendEntry(fx.sessionId, { type: VERIFICATION_ENTRY, data: { id: 'v2', messageId: two.replyId, passed: false } });
    await fx.store.appendEntry(fx.sessionId, { type: GOAL_ENTRY, data: { goal: { id: 'g2', objective: 'later goal', status: 'active' } } });

    const child = await forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId });
    const id = child.session.id;
    expect((await entries(id, MODEL_CHOICE_ENTRY)).map((data) => data.model)).toEqual(['large']);
    expect(await entries(id, EXECUTION_STATE_ENTRY)).toEqual([{ state: { mode: 'plan' }, sourceMessageId: one.replyId }]);
    expect((await entries(id, GOAL_ENTRY)).map((data) => data.goal)).toEqual([{ id: 'g1', objective: 'ship it', status: 'active' }]);
    expect((await entries(id, VERIFICATION_ENTRY)).map((data) => data.id)).toEqual(['v1']);
    expect(await entries(id, 'todo')).toEqual([]);
    expect(await entries(id, 'queued-input')).toEqual([]);
    expect(await fx.store.listCheckpoints(id)).toEqual([]);
    expect(child.copied).toEqual({ modelChoice: true, executionState: one.replyId, goal: true, verifications: 1 });

    // A message fork at the end of turn two (the parent idle, at its head) gets the later state.
    const later = await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: two.replyId });
    expect((await entries(later.session.id, EXECUTION_STATE_ENTRY))[0]!.state).toEqual({ mode: 'auto' });
    expect((await entries(later.session.id, VERIFICATION_ENTRY)).map((data) => data.id)).toEqual(['v1', 'v2']);
    expect((await entries(later.session.id, GOAL_ENTRY))[0]!.goal).toEqual({ id: 'g2', objective: 'later goal', status: 'active' });
  });

  it('a side chat copies model choice and execution state but no goal and no verification records', async () => {
    await fx.store.appendEntry(fx.sessionId, { type: MODEL_CHOICE_ENTRY, data: { model: 'large' } });
    await fx.store.appendEntry(fx.sessionId, { type: GOAL_ENTRY, data: { goal: { id: 'g1', objective: 'o', status: 'active' } } });
    const one = await fx.turn('one', undefined, { metadata: { executionState: { mode: 'plan' } } });
    await fx.store.appendEntry(fx.sessionId, { type: VERIFICATION_ENTRY, data: { id: 'v1', messageId: one.replyId } });
    const side = await forker.fork({ from: 'side-chat', sessionId: fx.sessionId });
    expect(await entries(side.session.id, MODEL_CHOICE_ENTRY)).toHaveLength(1);
    expect(await entries(side.session.id, EXECUTION_STATE_ENTRY)).toHaveLength(1);
    expect(await entries(side.session.id, GOAL_ENTRY)).toEqual([]);
    expect(await entries(side.session.id, VERIFICATION_ENTRY)).toEqual([]);
  });

  it('a fork starts its own, empty effects ledger', async () => {
    const one = await fx.turn('one');
    await fx.store.appendEffect({ sessionId: fx.sessionId, toolName: 'send_email', idempotencyKey: 'k1', status: 'succeeded' });
    const child = await forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId });
    expect(await fx.store.listEffects({ sessionId: child.session.id })).toEqual([]);
  });
});
