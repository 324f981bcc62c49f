import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/runtime/index.js';
import { EffectApprovals } from '../../src/server/index.js';
import { startFixture, type ServerFixture } from './server-harness.js';

const sent: string[] = [];
const notify = defineTool({
  name: 'notify',
  description: 'Send a message to a channel',
  effect: 'external',
  inputSchema: z.object({ channel: z.string(), text: z.string() }),
  async execute(input) {
    sent.push(`${input.channel}: ${input.text}`);
    return { output: { type: 'text', value: `sent to ${input.channel}` } };
  },
});
const call = { toolName: 'notify', input: { channel: 'ops', text: 'deploying' } };

let fx: ServerFixture;
let sessionId: string;

/** An external call the runtime holds back is asked of the page (event + method), and waits for the answer. */
describe('approving external effects over the protocol', () => {
  beforeAll(async () => {
    fx = await startFixture(
      [
        { toolCalls: [call] },
        { toolCalls: [call] },
        { text: 'Sent twice.' },
        { toolCalls: [call] },
        { text: 'Tried a third time.' },
        { toolCalls: [call] },
        { text: 'Nobody watched.' },
        { toolCalls: [call] },
        { text: 'Stopped?' },
      ],
      { tools: [notify], approvals: new EffectApprovals() },
    );
    sessionId = (await fx.client.ok('sessions.create', { workdir: fx.project, title: 'Effects' })).session.id;
    await fx.client.ok('session.subscribe', { sessionId });
  });
  afterAll(async () => fx?.close());

  it('asks for a repeat of a call that succeeded; Approve runs it, and every follower hears the decision', async () => {
    const started = await fx.client.ok('turn.send', { sessionId, text: 'notify twice' });
    const asked = await fx.client.waitFor((event) => event.type === 'effect.approval');
    expect(asked.approval).toMatchObject({ sessionId, toolName: 'notify', input: call.input, reason: 'already-succeeded' });
    expect(asked.approval.previousEffectId).toMatch(/^eff_/);
    expect(sent).toEqual(['ops: deploying']);
    expect((await fx.client.ok('effect.pending', { sessionId })).approvals).toEqual([asked.approval]);
    const decided = await fx.client.ok('effect.decide', { approvalId: asked.approval.approvalId, decision: 'run' });
    expect(decided).toEqual({ approvalId: asked.approval.approvalId, sessionId, decision: 'run' });
    expect(await fx.client.waitFor((event) => event.type === 'effect.decided')).toMatchObject({
      approvalId: asked.approval.approvalId,
      decision: 'run',
      by: 'person',
    });
    await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
    expect(sent).toEqual(['ops: deploying', 'ops: deploying']);
    expect((await fx.client.ok('effect.pending', { sessionId })).approvals).toEqual([]);
  });

  it('Deny tells the agent the call was declined and does not run it; a second answer is APPROVAL_NOT_FOUND', async () => {
    const started = await fx.client.ok('turn.send', { sessionId, text: 'notify again' });
    const asked = await fx.client.waitFor(
      (event) =>
        event.type === 'effect.approval' && !fx.client.events.some((seen) => seen.type === 'effect.decided' && seen.approvalId === event.approval.approvalId),
    );
    await fx.client.ok('effect.decide', { approvalId: asked.approval.approvalId, decision: 'deny' });
    const end = await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
    expect(end.status).toBe('complete');
    expect(sent).toHaveLength(2);
    const page = await fx.client.ok('conversation.page', { sessionId, limit: 4 });
    expect(JSON.stringify(page.messages)).toContain('Tried a third time.');
    const again = await fx.client.call('effect.decide', { approvalId: asked.approval.approvalId, decision: 'run' });
    expect(again.error?.data.code).toBe('APPROVAL_NOT_FOUND');
    expect(sent).toHaveLength(2);
  });

  it('denies at once when no tab follows the session, and refuses bad input with typed errors', async () => {
    await fx.client.ok('session.unsubscribe', { sessionId });
    const ended = new Promise<string>((resolve) => {
      const off = fx.runtime.events.on('turn-end', (event) => {
        if (event.sessionId !== sessionId) return;
        off();
        resolve(event.status);
      });
    });
    await fx.client.ok('turn.send', { sessionId, text: 'nobody watches' });
    expect(await ended).toBe('complete');
    expect(sent).toHaveLength(2);
    expect((await fx.client.call('effect.decide', { approvalId: 'apv_x', decision: 'maybe' })).error?.data.code).toBe('INVALID_ARGUMENT');
    expect((await fx.client.call('effect.decide', { approvalId: 'apv_x' })).error?.data.code).toBe('INVALID_ARGUMENT');
    expect((await fx.client.call('effect.pending', { sessionId: 'ses_unknown' })).error?.data.code).toBe('SESSION_NOT_FOUND');
    await fx.client.ok('session.subscribe', { sessionId });
  });

  it('turn.stop denies a call still waiting', async () => {
    const started = await fx.client.ok('turn.send', { sessionId, text: 'then stop' });
    const asked = await fx.client.waitFor(
      (event) =>
        event.type === 'effect.approval' &&
        event.approval.approvalId !== undefined &&
        !fx.client.events.some((seen) => seen.type === 'effect.decided' && seen.approvalId === event.approval.approvalId),
    );
    await fx.client.ok('turn.stop', { sessionId });
    expect(await fx.client.waitFor((event) => event.type === 'effect.decided' && event.approvalId === asked.approval.approvalId)).toMatchObject({
      decision: 'deny',
      by: 'nobody',
    });
    await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
    expect(sent).toHaveLength(2);
  });
});
