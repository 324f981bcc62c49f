import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { expectCode } from './conformance-context.js';
import type { ConformanceCase } from './run-store-conformance.js';
import type { StagingBlobStorage, StoredBlobInput } from '../store.js';

function raw(content: string): StoredBlobInput {
  const bytes = Buffer.from(content);
  const hash = createHash('sha256').update(bytes).digest('hex');
  return { record: { hash, size: bytes.length, storedSize: bytes.length, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes };
}

export const blobStorageCases: Record<string, ConformanceCase> = {
  async 'stored bytes read back exactly and survive a reopen'(harness) {
    const { store } = harness();
    const items = [raw('alpha'), raw(''), raw('gamma'.repeat(1000))];
    await store.blobs.putMany(items);
    for (const item of items) expect((await store.blobs.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
    const reopened = await harness().reopen();
    expect((await reopened.blobs.readStored(items[2]!.record.hash)).equals(items[2]!.bytes)).toBe(true);
    expect(await reopened.blobs.getRecord(items[0]!.record.hash)).toMatchObject({ size: 5, encoding: 'raw', chainDepth: 0 });
    expect((await reopened.blobs.has([items[0]!.record.hash, 'f'.repeat(64)])).size).toBe(1);
    expect((await reopened.blobs.stats()).blobCount).toBe(3);
  },

  async 'the footprint names its parts, adds them up, and counts stored blobs'(harness) {
    const { store } = harness();
    const before = await store.footprint();
    expect(before.totalBytes).toBe(before.parts.reduce((sum, part) => sum + part.bytes, 0));
    for (const part of before.parts) {
      expect(['database', 'blobs', 'other']).toContain(part.kind);
      expect(part.bytes).toBeGreaterThanOrEqual(0);
    }
    const item = raw('footprint '.repeat(8000));
    await store.blobs.putMany([item]);
    const after = await store.footprint();
    expect(after.totalBytes).toBe(after.parts.reduce((sum, part) => sum + part.bytes, 0));
    expect(after.totalBytes - before.totalBytes).toBeGreaterThanOrEqual(item.bytes.length);
  },

  async 'a backend declaring blob staging stages raw blobs that read back exactly'(harness) {
    const { store } = harness();
    if (!store.capabilities.blobStaging) return;
    const staging = store.blobs as unknown as StagingBlobStorage;
    const item = raw('staged content '.repeat(100));
    await staging.putMany([item], { staged: true });
    expect((await store.blobs.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
    expect((await staging.stagedBacklog()).blobs).toBe(1);
    const report = await staging.recompress({ encode: (content) => ({ encoding: 'raw', bytes: content }) });
    expect(report.blobsMoved).toBe(1);
    expect((await staging.stagedBacklog()).blobs).toBe(0);
    expect((await store.blobs.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
  },

  async 'a two-phase put (when offered) makes nothing readable before commit, and nothing after abort'(harness) {
    const { store } = harness();
    if (!store.blobs.beginPutMany) return;
    const item = raw('two-phase '.repeat(50));
    const pending = store.blobs.beginPutMany([item]);
    expect(await store.blobs.getRecord(item.record.hash)).toBeNull();
    await pending.commit();
    expect((await store.blobs.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
    const dropped = raw('abandoned');
    store.blobs.beginPutMany([dropped]).abort();
    await expectCode(store.blobs.readStored(dropped.record.hash), 'BLOB_NOT_FOUND');
    expect((await (await harness().reopen()).blobs.has([item.record.hash, dropped.record.hash])).size).toBe(1);
  },

  async 'storing the same content twice keeps one copy'(harness) {
    const { store } = harness();
    await store.blobs.putMany([raw('same'), raw('same')]);
    await store.blobs.putMany([raw('same')]);
    expect((await store.blobs.listRecords()).length).toBe(1);
  },

  async 'deleted blobs are gone and an unknown hash raises BLOB_NOT_FOUND'(harness) {
    const { store } = harness();
    const keep = raw('keep');
    const drop = raw('drop me');
    await store.blobs.putMany([keep, drop]);
    const { freedBytes } = await store.blobs.deleteMany([drop.record.hash]);
    expect(freedBytes).toBeGreaterThanOrEqual(drop.bytes.length);
    await expectCode(store.blobs.readStored(drop.record.hash), 'BLOB_NOT_FOUND');
    expect((await store.blobs.readStored(keep.record.hash)).toString()).toBe('keep');
  },
};
