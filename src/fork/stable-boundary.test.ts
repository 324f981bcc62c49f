import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/index.js';
import { checkStableBoundary, pinTurnBoundary } from './stable-boundary.js';

let dir: string;
let store: SqliteStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'waypoint-boundary-'));
  store = await SqliteStore.open({ path: join(dir, 'store', 'w.db') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pinTurnBoundary', () => {
  it("pins the turn's ordered message ids from its input to its final reply, and the goal without its active run", async () => {
    const session = await store.createSession();
    await store.appendEntry(session.id, { type: 'goal', data: { goal: { id: 'g', objective: 'o', status: 'active', run: { runId: 'r' } } } });
    const { message: input } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'q' }] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: input.id });
    const append = async (role: 'assistant' | 'tool', metadata = {}) =>
      (await store.appendMessage({ sessionId: session.id, role, turnId: turn.id, parts: [{ type: 'text', text: role }], metadata })).message;
    const call = await append('assistant');
    const result = await append('tool');
    const reply = await append('assistant');
    await store.appendMessage({ sessionId: session.id, role: 'system', parts: [{ type: 'text', text: 'notice' }], metadata: { visibility: 'ui' } });
    const pinned = await pinTurnBoundary(store, turn.id);
    expect(pinned.boundary).toEqual([input.id, call.id, result.id, reply.id]);
    expect(pinned.metadata.goalBoundary).toEqual({ goal: { id: 'g', objective: 'o', status: 'active' }, verificationEntryIds: [] });

    await store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
    const checked = await checkStableBoundary(store, await store.getSession(session.id), reply.id);
    expect(checked.turn.id).toBe(turn.id);
    await expect(checkStableBoundary(store, await store.getSession(session.id), call.id)).rejects.toMatchObject({ code: 'NOT_A_STABLE_BOUNDARY' });
  });

  it('refuses a turn with no reply yet', async () => {
    const session = await store.createSession();
    const { message: input } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'q' }] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: input.id });
    await expect(pinTurnBoundary(store, turn.id)).rejects.toMatchObject({ code: 'TURN_HAS_NO_REPLY' });
    expect((await store.getTurn(turn.id)).boundary).toBeNull();
  });
});
