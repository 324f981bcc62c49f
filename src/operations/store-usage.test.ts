import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperationsFixture, type OperationsFixture } from './fixtures/operations-fixture.js';
import { storeUsage } from './store-usage.js';

let fx: OperationsFixture;

beforeEach(async () => {
  fx = await createOperationsFixture();
  await fx.turn('Write a', { 'a.txt': 'a1\n'.repeat(100), 'lock.json': `${'"dep": "1.0.0",\n'.repeat(3000)}` });
  await fx.turn('Change a', { 'a.txt': 'a2\n'.repeat(100), 'lock.json': `"dep": "1.0.1",\n${'"dep": "1.0.0",\n'.repeat(2999)}` });
});
afterEach(() => fx.cleanup());

describe('storeUsage: where the bytes go', () => {
  it('splits the database into tables and indexes, counts the stored patches among the checkpoint rows: none, as patches are derived from the blobs', async () => {
    const usage = await storeUsage({ waypoint: fx.waypoint });
    const { database } = usage;
    const names = database.contents.map((item) => item.name);
    expect(names).toEqual(expect.arrayContaining(['checkpoints', 'blob_index', 'messages']));
    expect(database.contents.find((item) => item.name === 'blob_index_raw')?.kind).toBe('index');
    expect(database.rowsBytes).toBeGreaterThan(0);
    expect(database.indexBytes).toBeGreaterThan(0);
    // Pages of the database file and its WAL: the tables, indexes and free pages never exceed them.
    expect(database.rowsBytes + database.indexBytes + database.freeBytes).toBeLessThanOrEqual(usage.store.databaseBytes + 64 * 1024);
    const checkpoints = await fx.waypoint.store.listCheckpoints(fx.sessionId);
    const patches = checkpoints.filter((checkpoint) => checkpoint.patch !== null);
    expect(database.patches).toEqual({ count: patches.length, bytes: patches.reduce((sum, checkpoint) => sum + Buffer.byteLength(checkpoint.patch!), 0) });
    expect(database.patches).toEqual({ count: 0, bytes: 0 });
  });

  it('reports blobs by encoding (the second lock file as a delta), dead pack space and the compress backlog', async () => {
    const usage = await storeUsage({ waypoint: fx.waypoint });
    expect(usage.blobs.byEncoding.delta.count).toBeGreaterThanOrEqual(1);
    expect(usage.blobs.deadBytes).toBe(0);
    expect(usage.blobs.awaitingCompression).toEqual({ count: 0, bytes: 0 });
  });
});
