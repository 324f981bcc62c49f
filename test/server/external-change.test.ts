import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient, runCliProcess, startFixture, type ServerFixture } from './server-harness.js';

const STEPS = [{ toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'from the agent\n' } }] }, { text: 'Wrote a.txt.' }];

let fx: ServerFixture;

describe('a change made by the CLI in another process reaches every open tab without a reload', () => {
  beforeAll(async () => {
    fx = await startFixture(STEPS);
  });
  afterAll(async () => fx?.close());

  it('`waypoint rewind … latest --force` in a child process: both subscribed sockets get session.changed (external) and the new state reads back', async () => {
    const { session } = await fx.client.ok('sessions.create', { workdir: fx.project, title: 'Shared' });
    const second = await RpcClient.open(fx.wsUrl);
    try {
      for (const client of [fx.client, second]) await client.ok('session.subscribe', { sessionId: session.id });
      const started = await fx.client.ok('turn.send', { sessionId: session.id, text: 'write a' });
      await second.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
      expect(readFileSync(join(fx.project, 'a.txt'), 'utf8')).toBe('from the agent\n');
      // Let the watcher settle on the server's own change before the other process acts.
      await fx.client.waitFor((event) => event.type === 'session.changed' && event.origin === 'server');
      const marker = fx.client.events.length;
      const markerSecond = second.events.length;
      const cli = runCliProcess(['rewind', session.id, 'latest', '--force'], fx.storePath);
      expect(cli.code, cli.stderr).toBe(0);
      const external = (event: { type: string; origin?: string; sessionId?: string }) =>
        event.type === 'session.changed' && event.origin === 'external' && event.sessionId === session.id;
      const [seen, seenSecond] = await Promise.all([
        fx.client.waitFor((event) => fx.client.events.indexOf(event) >= marker && external(event), 30_000),
        second.waitFor((event) => second.events.indexOf(event) >= markerSecond && external(event), 30_000),
      ]);
      expect(seen.session.id).toBe(session.id);
      expect(seenSecond.sessionId).toBe(session.id);
      const status = await second.ok('rewind.status', { sessionId: session.id });
      expect(status.redo.fileRewinds).toHaveLength(1);
    } finally {
      second.close();
    }
  });

  it('a session created by another process shows as sessions.changed on every socket', async () => {
    const marker = fx.client.events.length;
    const [session] = (await fx.client.ok('sessions.list')).sessions;
    const page = await fx.client.ok('conversation.page', { sessionId: session.id });
    const final = page.messages.findLast((message: { actions: { fork: boolean } }) => message.actions.fork);
    const cli = runCliProcess(['fork', session.id, '--stable', final.id, '--json'], fx.storePath);
    expect(cli.code, cli.stderr + cli.stdout).toBe(0);
    await fx.client.waitFor((event) => fx.client.events.indexOf(event) >= marker && event.type === 'sessions.changed', 30_000);
    expect((await fx.client.ok('sessions.list')).sessions.length).toBeGreaterThan(1);
  });
});
