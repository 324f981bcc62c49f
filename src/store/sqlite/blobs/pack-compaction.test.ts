import { createHash } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredBlobInput } from '../../store.js';
import { blobContent, makeTempDir, openBlobDatabase, removeTempDirs } from './fixtures/blob-test-database.js';
import { PackBlobStorage } from './pack-blob-storage.js';

function rawBlob(content: Buffer): StoredBlobInput {
  const hash = createHash('sha256').update(content).digest('hex');
  return { record: { hash, size: content.length, storedSize: content.length, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes: content };
}

function setup() {
  const dir = makeTempDir();
  const db = openBlobDatabase(join(dir, 'store.db'));
  const packDir = join(dir, 'packs');
  const items = Array.from({ length: 20 }, (_, index) => rawBlob(blobContent('compact', index)));
  return { dir, db, packDir, items, storage: new PackBlobStorage(db, packDir, { readOnly: false }) };
}

async function expectReadable(storage: PackBlobStorage, items: StoredBlobInput[]) {
  for (const item of items) expect((await storage.readStored(item.record.hash)).equals(item.bytes)).toBe(true);
}

const sum = (items: StoredBlobInput[]) => items.reduce((total, item) => total + item.bytes.length, 0);

afterAll(removeTempDirs);

describe('PackBlobStorage compaction', () => {
  it('rewrites a mostly dead pack: footprint shrinks to the live bytes, live blobs intact', async () => {
    const { storage, packDir, items } = setup();
    await storage.putMany(items);
    const [kept, dropped] = [items.slice(0, 4), items.slice(4)];
    const { freedBytes } = await storage.deleteMany(dropped.map((item) => item.record.hash));
    expect(freedBytes).toBe(sum(dropped));
    const stats = await storage.stats();
    expect(stats.blobCount).toBe(4);
    expect(stats.footprintBytes).toBe(sum(kept));
    expect(readdirSync(packDir)).toHaveLength(1);
    await expectReadable(storage, kept);
    expect(await storage.has(dropped.map((item) => item.record.hash))).toEqual(new Set());
  });

  it('never unlinks a pack that still holds live blobs and leaves well-used packs alone', async () => {
    const { storage, packDir, items } = setup();
    await storage.putMany(items);
    const packsBefore = readdirSync(packDir);
    await storage.deleteMany([items[0]!.record.hash]);
    expect(readdirSync(packDir)).toEqual(packsBefore);
    await expectReadable(storage, items.slice(1));
  });

  it('removes pack files once nothing lives in them', async () => {
    const { storage, packDir, items, db } = setup();
    await storage.putMany(items.slice(0, 10));
    storage.close();
    const second = new PackBlobStorage(db, packDir, { readOnly: false });
    await second.putMany(items.slice(10));
    await second.deleteMany(items.map((item) => item.record.hash));
    expect(readdirSync(packDir)).toEqual([]);
    expect(await second.stats()).toEqual({ blobCount: 0, rawBytes: 0, storedBytes: 0, footprintBytes: 0 });
    expect(db.prepare('SELECT COUNT(*) FROM blob_packs').pluck().get()).toBe(0);
  });

  it('does not touch the open pack of another live writer until it is sealed', async () => {
    const { storage: writer, packDir, items, db } = setup();
    await writer.putMany(items);
    const [writerPack] = readdirSync(packDir);
    const collector = new PackBlobStorage(db, packDir, { readOnly: false });
    await collector.deleteMany(items.slice(2).map((item) => item.record.hash));
    expect(readdirSync(packDir)).toEqual([writerPack]);
    writer.close();
    await collector.compact();
    expect(readdirSync(packDir)).not.toContain(writerPack);
    await expectReadable(collector, items.slice(0, 2));
    expect((await collector.stats()).footprintBytes).toBe(sum(items.slice(0, 2)));
  });

  it('sweeps stray pack files that have no registration, and nothing else', async () => {
    const { storage, packDir, items } = setup();
    await storage.putMany(items.slice(0, 3));
    const stray = 'pack-lq3k2m00-999999-0123abcd.pack';
    writeFileSync(join(packDir, stray), Buffer.alloc(1000, 7));
    writeFileSync(join(packDir, 'notes.txt'), 'not a pack');
    const result = await storage.compact();
    expect(result.packsRemoved).toBe(1);
    expect(result.bytesReclaimed).toBe(1000);
    expect(readdirSync(packDir)).not.toContain(stray);
    expect(readdirSync(packDir)).toContain('notes.txt');
    await expectReadable(storage, items.slice(0, 3));
  });

  it('keeps serving reads from another instance after its pack was compacted away', async () => {
    const { storage, packDir, items, db } = setup();
    await storage.putMany(items);
    storage.close();
    const reader = new PackBlobStorage(db, packDir, { readOnly: true });
    await expectReadable(reader, items);
    const collector = new PackBlobStorage(db, packDir, { readOnly: false });
    await collector.deleteMany(items.slice(3).map((item) => item.record.hash));
    await expectReadable(reader, items.slice(0, 3));
    reader.close();
  });
});
