import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient, runCliProcess, startFixture, type ServerFixture } from '../server/server-harness.js';
import { SKIP_REASON, dropSchema, freshSchema, postgresAvailable, schemaUrl } from './pg-test-env.js';

const STEPS = [{ toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'from the agent\n' } }] }, { text: 'Wrote a.txt.' }];

if (postgresAvailable()) {
  // On PostgreSQL the server does not poll or watch files: it hears other processes' commits by LISTEN/NOTIFY alone.
  describe('live events across processes on PostgreSQL (LISTEN/NOTIFY)', () => {
    let fx: ServerFixture;
    const schema = freshSchema('wpl');
    beforeAll(async () => {
      fx = await startFixture(STEPS, { store: schemaUrl(schema) });
    }, 240_000);
    afterAll(async () => {
      await fx?.close();
      await dropSchema(schema);
    });

    it('a CLI rewind in another process reaches a subscribed socket as session.changed (external); a CLI fork as sessions.changed', async () => {
      const { session } = await fx.client.ok('sessions.create', { workdir: fx.project, title: 'Shared over PostgreSQL' });
      const second = await RpcClient.open(fx.wsUrl);
      try {
        await second.ok('session.subscribe', { sessionId: session.id });
        const started = await fx.client.ok('turn.send', { sessionId: session.id, text: 'write a' });
        await second.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId, 120_000);
        // The server's own commits are announced too: the first comes with the turn (no poll or file watch on PostgreSQL).
        await second.waitFor((event) => event.type === 'session.changed' && event.sessionId === session.id, 120_000);
        const marker = second.events.length;
        const cli = runCliProcess(['rewind', session.id, 'latest', '--force'], fx.storePath);
        expect(cli.code, cli.stderr).toBe(0);
        const seen = await second.waitFor(
          (event) => second.events.indexOf(event) >= marker && event.type === 'session.changed' && event.sessionId === session.id,
          120_000,
        );
        expect(seen.session.id).toBe(session.id);
        const status = await second.ok('rewind.status', { sessionId: session.id });
        expect(status.redo.fileRewinds).toHaveLength(1);

        const forkMarker = second.events.length;
        const page = await second.ok('conversation.page', { sessionId: session.id });
        const final = page.messages.findLast((message: { actions: { fork: boolean } }) => message.actions.fork);
        const fork = runCliProcess(['fork', session.id, '--stable', final.id, '--json'], fx.storePath);
        expect(fork.code, fork.stderr + fork.stdout).toBe(0);
        await second.waitFor((event) => second.events.indexOf(event) >= forkMarker && event.type === 'sessions.changed', 120_000);
      } finally {
        second.close();
      }
    }, 600_000);
  });
} else {
  describe.skip(`live events on PostgreSQL — skipped: ${SKIP_REASON}`, () => {});
}
