import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredBlobInput } from '../../store.js';
import { blobContent, makeTempDir, openBlobDatabase, removeTempDirs } from './fixtures/blob-test-database.js';
import { PackBlobStorage } from './pack-blob-storage.js';
import { codeOf } from '../../../model/fixtures/error-code.js';

function rawBlob(content: Buffer): StoredBlobInput {
  const hash = createHash('sha256').update(content).digest('hex');
  return { record: { hash, size: content.length, storedSize: content.length, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes: content };
}

function open(readOnly = false) {
  const dir = makeTempDir();
  const db = openBlobDatabase(join(dir, 'store.db'));
  const packDir = join(dir, 'packs');
  return { dir, db, packDir, storage: new PackBlobStorage(db, packDir, { readOnly }) };
}

afterAll(removeTempDirs);

describe('PackBlobStorage', () => {
  it('stores a batch in one pack and reads every blob back exactly', async () => {
    const { storage, packDir } = open();
    const items = [Buffer.alloc(0), Buffer.from([0, 255, 10, 13]), blobContent('a', 1), blobContent('a', 2)].map(rawBlob);
    await storage.putMany(items);
    for (const item of items) expect((await storage.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
    expect(readdirSync(packDir)).toHaveLength(1);
    const record = await storage.getRecord(items[2]!.record.hash);
    expect(record).toMatchObject({ ...items[2]!.record });
    expect(typeof record!.createdAt).toBe('number');
    const records = await storage.getRecords([items[0]!.record.hash, items[3]!.record.hash, 'f'.repeat(64)]);
    expect([...records.keys()].sort()).toEqual([items[0]!.record.hash, items[3]!.record.hash].sort());
    expect(await storage.listRecords()).toHaveLength(4);
  });

  it('beginPutMany: nothing is readable before commit; commit indexes after the sync; abort leaves nothing', async () => {
    const { storage } = open();
    const present = rawBlob(blobContent('present', 1));
    await storage.putMany([present]);
    const fresh = rawBlob(blobContent('fresh', 2));
    const pending = storage.beginPutMany([present, fresh, fresh]);
    expect(pending.count).toBe(1);
    expect(await storage.getRecord(fresh.record.hash)).toBeNull();
    // While the write is pending its pack is not compacted away (it stays open), even by a full compaction.
    await storage.compact({ minLiveRatio: 1 });
    await pending.commit();
    expect((await storage.readStored(fresh.record.hash)).equals(fresh.bytes)).toBe(true);
    expect(await codeOf(pending.commit())).toBe('STORE_CLOSED');

    const dropped = rawBlob(blobContent('dropped', 3));
    const aborted = storage.beginPutMany([dropped]);
    aborted.abort();
    aborted.abort();
    expect(await storage.getRecord(dropped.record.hash)).toBeNull();
    const nothing = storage.beginPutMany([present]);
    expect(nothing.count).toBe(0);
    await nothing.commit();
    expect((await storage.stats()).blobCount).toBe(2);
  });

  it('skips hashes already present, in the same batch and across batches', async () => {
    const { storage } = open();
    const item = rawBlob(blobContent('dup', 3));
    await storage.putMany([item, item]);
    const before = await storage.stats();
    await storage.putMany([item]);
    const after = await storage.stats();
    expect(before.blobCount).toBe(1);
    expect(after).toEqual(before);
    expect(after.footprintBytes).toBe(item.bytes.length);
  });

  it('reports stats: count, raw and stored sizes, pack footprint', async () => {
    const { storage } = open();
    const content = blobContent('stats', 5);
    const item: StoredBlobInput = {
      record: { ...rawBlob(content).record, encoding: 'deflate', storedSize: 10, size: content.length },
      bytes: Buffer.alloc(10, 1),
    };
    await storage.putMany([item, rawBlob(Buffer.from('xyz'))]);
    expect(await storage.stats()).toEqual({ blobCount: 2, rawBytes: content.length + 3, storedBytes: 13, footprintBytes: 13 });
  });

  it('answers has() for present and absent hashes', async () => {
    const { storage } = open();
    const item = rawBlob(Buffer.from('present'));
    await storage.putMany([item]);
    expect(await storage.has([item.record.hash, 'a'.repeat(64)])).toEqual(new Set([item.record.hash]));
    expect(await storage.has([])).toEqual(new Set());
  });

  it('raises BLOB_NOT_FOUND for an unknown hash', async () => {
    const { storage } = open();
    expect(await storage.getRecord('0'.repeat(64))).toBeNull();
    expect(await codeOf(storage.readStored('0'.repeat(64)))).toBe('BLOB_NOT_FOUND');
  });

  it('refuses writes in read-only mode and still reads', async () => {
    const { db, packDir, storage } = open();
    const item = rawBlob(Buffer.from('kept'));
    await storage.putMany([item]);
    const readOnly = new PackBlobStorage(db, packDir, { readOnly: true });
    expect(await codeOf(readOnly.putMany([rawBlob(Buffer.from('new'))]))).toBe('STORE_READ_ONLY');
    expect(await codeOf(readOnly.deleteMany([item.record.hash]))).toBe('STORE_READ_ONLY');
    expect(await codeOf(readOnly.compact())).toBe('STORE_READ_ONLY');
    expect((await readOnly.readStored(item.record.hash)).toString()).toBe('kept');
    expect(await storage.has([item.record.hash])).toEqual(new Set([item.record.hash]));
  });

  it('rejects a record whose storedSize or base does not match its bytes', async () => {
    const { storage } = open();
    const item = rawBlob(Buffer.from('abc'));
    expect(await codeOf(storage.putMany([{ ...item, record: { ...item.record, storedSize: 4 } }]))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(storage.putMany([{ ...item, record: { ...item.record, encoding: 'delta' } }]))).toBe('INVALID_ARGUMENT');
    expect((await storage.stats()).blobCount).toBe(0);
  });

  it('reports a truncated pack as corrupt instead of returning short bytes', async () => {
    const { db, storage } = open();
    const item = rawBlob(blobContent('trunc', 4));
    await storage.putMany([item]);
    db.prepare('UPDATE blob_index SET stored_size = stored_size + 5 WHERE hash = unhex(?)').run(item.record.hash);
    expect(await codeOf(storage.readStored(item.record.hash))).toBe('BLOB_CORRUPT');
  });

  it('rolls to a new pack past maxPackBytes', async () => {
    const dir = makeTempDir();
    const db = openBlobDatabase(join(dir, 'store.db'));
    const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false, maxPackBytes: 8 * 1024 });
    const items = [1, 2, 3, 4].map((index) => rawBlob(blobContent('roll', index * 3)));
    for (const item of items) await storage.putMany([item]);
    expect(readdirSync(join(dir, 'packs')).length).toBeGreaterThan(1);
    for (const item of items) expect((await storage.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
  });
});
