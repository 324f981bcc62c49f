import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredBlobInput } from '../../store.js';
import { blobContent, makeTempDir, openBlobDatabase, removeTempDirs } from './fixtures/blob-test-database.js';
import { PackBlobStorage } from './pack-blob-storage.js';
import { isStagingPackName } from './pack-file-name.js';
import type { RecompressOptions } from '../../store.js';

function rawBlob(content: Buffer): StoredBlobInput {
  const hash = createHash('sha256').update(content).digest('hex');
  return { record: { hash, size: content.length, storedSize: content.length, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes: content };
}

/** The blob layer's rule, restated with zlib directly: deflate when it saves at least 1/32. */
const encode: RecompressOptions['encode'] = (content) => {
  const deflated = deflateRawSync(content, { level: 1 });
  return deflated.length <= content.length - content.length / 32 ? { encoding: 'deflate', bytes: deflated } : { encoding: 'raw', bytes: content };
};

function setup(options: { maxPackBytes?: number } = {}) {
  const dir = makeTempDir();
  const db = openBlobDatabase(join(dir, 'store.db'));
  const packDir = join(dir, 'packs');
  return { dir, db, packDir, storage: new PackBlobStorage(db, packDir, { readOnly: false, ...options }) };
}

/** Read every blob through the storage and decode it by its current record: exact content, whatever the encoding. */
async function expectContents(storage: PackBlobStorage, items: StoredBlobInput[]) {
  for (const item of items) {
    const record = (await storage.getRecord(item.record.hash))!;
    const stored = await storage.readStored(item.record.hash);
    const content = record.encoding === 'deflate' ? inflateRawSync(stored) : stored;
    expect(content.equals(item.bytes), item.record.hash).toBe(true);
  }
}

const textItems = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => rawBlob(blobContent(prefix, index)));
const sum = (items: StoredBlobInput[]) => items.reduce((total, item) => total + item.bytes.length, 0);

afterAll(removeTempDirs);

describe('PackBlobStorage raw-first staging and recompress', () => {
  it('stages whole raw blobs in a .raw.pack and reads them back exactly', async () => {
    const { storage, packDir } = setup();
    const items = [...textItems('stage', 30), rawBlob(Buffer.from([0, 1, 2, 255]))];
    await storage.putMany(items, { staged: true });
    expect(readdirSync(packDir).filter(isStagingPackName)).toHaveLength(1);
    await expectContents(storage, items);
    expect(await storage.stagedBacklog()).toEqual({ blobs: items.length, bytes: sum(items) });
    expect((await storage.stats()).footprintBytes).toBe(sum(items));
  });

  it('refuses to stage anything but whole raw blobs', async () => {
    const { storage } = setup();
    const item = rawBlob(blobContent('x', 1));
    await expect(storage.putMany([{ ...item, record: { ...item.record, encoding: 'deflate' } }], { staged: true })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('recompress shrinks the footprint, keeps incompressible blobs raw, and removes the staging pack', async () => {
    const { storage, packDir } = setup();
    const random = Array.from({ length: 5 }, (_, index) => rawBlob(createHash('sha512').update(String(index)).digest().subarray(0, 64)));
    const items = [...textItems('shrink', 40), ...random];
    await storage.putMany(items, { staged: true });
    const before = await storage.stats();
    const result = await storage.recompress({ encode });
    const after = await storage.stats();
    expect(result).toMatchObject({
      blobsMoved: items.length,
      blobsDeflated: 40,
      bytesIn: sum(items),
      packsRemoved: 1,
      bytesReclaimed: sum(items),
      pendingBlobs: 0,
      pendingBytes: 0,
    });
    expect(after.footprintBytes).toBe(result.bytesOut);
    expect(after.footprintBytes).toBeLessThan(before.footprintBytes / 4);
    expect(after.blobCount).toBe(items.length);
    expect(readdirSync(packDir).filter(isStagingPackName)).toEqual([]);
    for (const item of random) expect((await storage.getRecord(item.record.hash))!.encoding).toBe('raw');
    await expectContents(storage, items);
    // Nothing is left to do: a second pass is a no-op, and raw-for-good blobs are not retried.
    expect(await storage.recompress({ encode })).toMatchObject({ blobsMoved: 0, bytesIn: 0, pendingBlobs: 0 });
  });

  it('stops at maxBytes with the rest pending, every blob readable in between, and finishes on the next pass', async () => {
    const { storage } = setup();
    const items = textItems('budget', 1200); // about 12 MiB: more than one 8 MiB chunk
    await storage.putMany(items, { staged: true });
    const first = await storage.recompress({ encode, maxBytes: 1 });
    expect(first.blobsMoved).toBeGreaterThan(0);
    expect(first.pendingBlobs).toBe(items.length - first.blobsMoved);
    expect(first.packsRemoved).toBe(0);
    await expectContents(storage, items);
    const second = await storage.recompress({ encode });
    expect(second.blobsMoved + first.blobsMoved).toBe(items.length);
    expect(second).toMatchObject({ pendingBlobs: 0, packsRemoved: 1 });
    await expectContents(storage, items);
  });

  it('streams a staged batch: nothing is indexed before commit, everything after; an aborted batch indexes nothing', async () => {
    const { storage } = setup();
    const items = textItems('stream', 50);
    const batch = storage.openStagedBatch();
    for (const item of items) batch.add(item.record.hash, item.bytes);
    batch.add(items[0]!.record.hash, items[0]!.bytes);
    expect(batch.count).toBe(items.length);
    expect(await storage.has(items.map((item) => item.record.hash))).toEqual(new Set());
    await batch.commit();
    await expectContents(storage, items);

    const dropped = textItems('aborted', 5);
    const aborted = storage.openStagedBatch();
    for (const item of dropped) aborted.add(item.record.hash, item.bytes);
    aborted.abort();
    expect(await storage.has(dropped.map((item) => item.record.hash))).toEqual(new Set());
    // Whatever of the aborted bytes reached the staging pack is dead space; the compress pass leaves it behind.
    const result = await storage.recompress({ encode });
    expect(result.blobsMoved).toBe(items.length);
    expect(result.bytesReclaimed).toBeGreaterThanOrEqual(sum(items));
    expect(result.bytesReclaimed).toBeLessThanOrEqual(sum(items) + sum(dropped));
    expect((await storage.stats()).footprintBytes).toBe((await storage.stats()).storedBytes);
  });

  it('leaves the staging pack of a live writer alone until it is sealed', async () => {
    const { storage: writer, db, packDir } = setup();
    const items = textItems('live', 20);
    await writer.putMany(items, { staged: true });
    const collector = new PackBlobStorage(db, packDir, { readOnly: false });
    expect(await collector.recompress({ encode })).toMatchObject({ blobsMoved: 0, pendingBlobs: items.length });
    writer.close();
    expect(await collector.recompress({ encode })).toMatchObject({ blobsMoved: items.length, pendingBlobs: 0, packsRemoved: 1 });
    await expectContents(collector, items);
  });

  it('compaction keeps staged blobs staged, and removes a staging pack once nothing lives in it', async () => {
    const { storage, packDir } = setup();
    const items = textItems('compact', 20);
    await storage.putMany(items, { staged: true });
    storage.close();
    const [written] = readdirSync(packDir);
    const collector = new PackBlobStorage(openBlobDatabase(join(packDir, '..', 'store.db')), packDir, { readOnly: false });
    await collector.deleteMany(items.slice(2).map((item) => item.record.hash));
    await collector.compact({ minLiveRatio: 1 });
    // The mostly dead staging pack was copied into the collector's own staging pack, still raw and pending.
    const staging = readdirSync(packDir).filter(isStagingPackName);
    expect(staging).toHaveLength(1);
    expect(staging).not.toContain(written);
    expect(await collector.stagedBacklog()).toEqual({ blobs: 2, bytes: sum(items.slice(0, 2)) });
    expect((await collector.stats()).footprintBytes).toBe(sum(items.slice(0, 2)));
    await expectContents(collector, items.slice(0, 2));
    await collector.deleteMany(items.slice(0, 2).map((item) => item.record.hash));
    expect(readdirSync(packDir)).toEqual([]);
  });

  it('a reader holding the old records keeps reading after the staging pack was recompressed away', async () => {
    const { storage, db, packDir } = setup();
    const items = textItems('reader', 30);
    await storage.putMany(items, { staged: true });
    storage.close();
    const reader = new PackBlobStorage(db, packDir, { readOnly: true });
    await expectContents(reader, items.slice(0, 3)); // caches a descriptor of the staging pack
    await new PackBlobStorage(db, packDir, { readOnly: false }).recompress({ encode });
    await expectContents(reader, items);
    expect(await reader.recompress({ encode }).catch((error: { code: string }) => error.code)).toBe('STORE_READ_ONLY');
    reader.close();
  });
});
