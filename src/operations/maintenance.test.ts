import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.js';
import { createOperationsFixture, type OperationsFixture } from './fixtures/operations-fixture.js';
import { storeUsage } from './store-usage.js';

let fx: OperationsFixture;

beforeEach(async () => {
  fx = await createOperationsFixture();
  await fx.turn('Write a', { 'a.txt': 'a1\n'.repeat(100) });
  await fx.turn('Change a', { 'a.txt': 'a2\n'.repeat(100) });
});
afterEach(() => fx.cleanup());

describe('storeUsage', () => {
  it("takes the bytes on disk from the store's own footprint, by part", async () => {
    const usage = await storeUsage({ waypoint: fx.waypoint });
    const footprint = await fx.waypoint.store.footprint();
    expect(usage.store.parts.map((part) => part.kind)).toEqual(footprint.parts.map((part) => part.kind));
    expect(usage.store.totalBytes).toBe(usage.store.databaseBytes + usage.store.blobFileBytes);
    expect(usage.store.blobFileBytes).toBeGreaterThan(0);
    expect(usage.sessions).toEqual([expect.objectContaining({ id: fx.sessionId, checkpoints: 2 })]);
  });

  it('refuses an unknown option', async () => {
    await fx.refused('INVALID_ARGUMENT', (context) => storeUsage(context, { verbose: true } as never));
  });
});

describe('collectGarbage', () => {
  it('refuses keepSessions below 1, and while a turn of the store runs in this process', async () => {
    await fx.refused('INVALID_ARGUMENT', (context) => collectGarbage(context, { keepSessions: 0 }));
    await fx.refused('TURN_RUNNING', (context) => collectGarbage(context, { keepSessions: 1 }), { running: true });
  });

  it('a dry run with retention reports and removes nothing', async () => {
    const other = await fx.waypoint.history.createSession({ title: 'Newer', workdir: fx.ws });
    await fx.turn('Write b', { 'b.txt': 'b\n' }, other.id);
    const report = await collectGarbage({ waypoint: fx.waypoint }, { keepSessions: 1, dryRun: true });
    expect(report.removedSessions.map((session) => session.id)).toEqual([fx.sessionId]);
    expect((await fx.waypoint.store.listSessions()).length).toBe(2);
  });
});
