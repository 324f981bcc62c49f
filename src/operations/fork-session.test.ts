import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forkFromSavePoint } from './fork-from-save-point.js';
import { forkSession } from './fork-session.js';
import { createOperationsFixture, type FixtureTurn, type OperationsFixture } from './fixtures/operations-fixture.js';

let fx: OperationsFixture;
let first: FixtureTurn;

beforeEach(async () => {
  fx = await createOperationsFixture();
  first = await fx.turn('Write a', { 'a.txt': 'a1\n' });
  await fx.turn('Change a', { 'a.txt': 'a2\n' });
});
afterEach(() => fx.cleanup());

describe('forkSession', () => {
  it("a shared fork that would change the parent's files needs confirmation; the refusal carries the preview", async () => {
    const error = await fx.refused('FORK_NEEDS_CONFIRMATION', (context) => forkSession(context, { from: 'checkpoint', sessionId: fx.sessionId }));
    expect(error.details.files).toEqual([{ path: 'workspace:a.txt', action: 'write', status: 'safe' }]);
    expect(error.details.preview).toMatchObject({ requiresConfirmation: true, strategy: 'shared' });
    const confirmed = await forkSession({ waypoint: fx.waypoint }, { from: 'checkpoint', sessionId: fx.sessionId, confirm: true });
    expect(confirmed).toMatchObject({ type: 'fork', parentSessionId: fx.sessionId, strategy: 'shared', created: true });
    expect(fx.read('a.txt')).toBe('a1\n');
  });

  it('forks from a checkpoint or a message refuse while the parent runs a turn; stable forks and side chats do not', async () => {
    await fx.refused(
      'TURN_RUNNING',
      (context) => forkSession(context, { from: 'message', sessionId: fx.sessionId, messageId: first.replyId, workspace: { mode: 'isolated' } }),
      { running: true },
    );
    await fx.refused('TURN_RUNNING', (context) => forkSession(context, { from: 'checkpoint', sessionId: fx.sessionId, confirm: true }), { running: true });
    const stable = await forkSession({ waypoint: fx.waypoint, isRunning: () => true }, { from: 'stable', sessionId: fx.sessionId, messageId: first.replyId });
    expect(stable.session.kind).toBe('fork');
  });

  it('refuses a session with no checkpoint and bad input; with the parent directory gone, a shared fork is refused and an isolated one is built from the store', async () => {
    const empty = await fx.waypoint.history.createSession({ title: 'Empty', workdir: fx.ws });
    await fx.refused('NO_WORKSPACE_CHECKPOINT', (context) => forkSession(context, { from: 'checkpoint', sessionId: empty.id }));
    await fx.refused('INVALID_ARGUMENT', (context) => forkSession(context, { from: 'nowhere', sessionId: fx.sessionId } as never));
    rmSync(fx.ws, { recursive: true });
    await fx.refused('WORKSPACE_MISSING', (context) => forkSession(context, { from: 'checkpoint', sessionId: fx.sessionId, confirm: true }));
    // The store holds every version the agent wrote: the fork point's files come back from it, and the report says so.
    const fork = await forkSession(
      { waypoint: fx.waypoint },
      { from: 'message', sessionId: fx.sessionId, messageId: first.replyId, workspace: { mode: 'isolated' } },
    );
    expect(fork.materialized?.fromStore).toBeDefined();
    expect(readFileSync(join(fork.workdir!, 'a.txt'), 'utf8')).toBe('a1\n');
    expect(existsSync(fx.ws)).toBe(false);
  });

  it('an isolated fork materializes the fork point in its own directory, the parent untouched', async () => {
    const events: string[] = [];
    const fork = await forkSession(
      { waypoint: fx.waypoint, events: { emit: (name) => events.push(name) } },
      { from: 'message', sessionId: fx.sessionId, messageId: first.replyId, workspace: { mode: 'isolated' } },
    );
    expect(fork.materialized).not.toBeNull();
    expect(existsSync(join(fork.workdir!, 'a.txt'))).toBe(true);
    expect(fx.read('a.txt')).toBe('a2\n');
    expect(events).toEqual(['fork']);
  });
});

describe('forkFromSavePoint', () => {
  it('refuses a turn without that save point and while the parent runs a turn', async () => {
    await fx.refused('SAVE_POINT_NOT_FOUND', (context) => forkFromSavePoint(context, { sessionId: fx.sessionId, turn: 1, point: 'A', name: 'x' }));
    await fx.refused('TURN_RUNNING', (context) => forkFromSavePoint(context, { sessionId: fx.sessionId, turn: 1, name: 'x' }), { running: true });
  });
});
