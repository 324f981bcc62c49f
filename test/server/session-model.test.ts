import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_CHOICE_ENTRY } from '../../src/fork/index.js';
import { startFixture, type ServerFixture } from './server-harness.js';

let fx: ServerFixture;

/** `session.get` names the model a session remembers (what `chat --resume` runs it with) and the server's own. */
describe('a session’s model over the protocol', () => {
  beforeAll(async () => {
    fx = await startFixture([{ text: 'Hi.' }]);
  });
  afterAll(async () => fx?.close());

  it('a session created by the server remembers the server’s model; one recorded elsewhere keeps its own', async () => {
    const created = (await fx.client.ok('sessions.create', { workdir: fx.project, title: 'Mine' })).session.id;
    const mine = await fx.client.ok('session.get', { sessionId: created });
    expect(mine.model).toMatchObject({ label: fx.runtime.modelLabel });
    expect(mine.serverModel).toBe(fx.runtime.modelLabel);

    const other = await fx.waypoint.history.createSession({ title: 'Elsewhere', workdir: fx.project });
    await fx.waypoint.store.appendEntry(other.id, {
      type: MODEL_CHOICE_ENTRY,
      data: { model: 'anthropic:claude-test', provider: 'anthropic', modelId: 'claude-test', spec: 'anthropic:claude-test' },
    });
    const theirs = await fx.client.ok('session.get', { sessionId: other.id });
    expect(theirs.model).toEqual({ spec: 'anthropic:claude-test', label: 'anthropic:claude-test' });
    expect(theirs.serverModel).toBe(fx.runtime.modelLabel);
    const none = await fx.waypoint.history.createSession({ title: 'Unrecorded', workdir: fx.project });
    expect((await fx.client.ok('session.get', { sessionId: none.id })).model).toBeNull();
  });
});
