import { afterAll, describe, expect, it } from 'vitest';
import { BlobStore } from './blob-store.js';
import { packBackend } from './fixtures/pack-backend.js';
import { removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';

const text = (label: string) => Buffer.from(`${label}\n${'a line of a file that changes a little\n'.repeat(400)}`);

afterAll(removeTempDirs);

describe('BlobStore.gc', () => {
  it('keeps roots and their delta bases transitively, sweeps the rest', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const v1 = await blobs.put(text('v1'));
    const v2 = await blobs.put(text('v2'), { baseHash: v1 });
    const v3 = await blobs.put(text('v3'), { baseHash: v2 });
    const v4 = await blobs.put(text('v4'), { baseHash: v3 });
    const loose = await blobs.put(Buffer.from('nobody refers to me'));
    const other = await blobs.put(Buffer.from('a checkpoint refers to me'));
    // Skip-delta: v2 and v3 are deltas on v1, v4 one on v3.
    expect((await blobs.stat(v4)).chainDepth).toBe(2);
    expect((await blobs.stat(v2)).baseHash).toBe(v1);
    backend.roots.add(v4).add(other);
    const v2Stored = (await blobs.stat(v2)).storedSize;

    const report = await blobs.gc();
    expect(report).toMatchObject({ dryRun: false, scanned: 6, live: 4, missingBases: [], missingRoots: [] });
    expect(report.unreachable.sort()).toEqual([loose, v2].sort());
    expect(report.freedBytes).toBe(Buffer.from('nobody refers to me').length + v2Stored);
    expect(await blobs.has(loose)).toBe(false);
    expect((await blobs.get(v4)).equals(text('v4'))).toBe(true);
    expect(await blobs.has(v1)).toBe(true);
    expect(await blobs.has(v3)).toBe(true);
  });

  it('dry run reports what would be freed and changes nothing', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const kept = await blobs.put(text('kept'));
    const dropped = await blobs.putMany([text('one'), text('two')]);
    backend.roots.add(kept);
    const before = await backend.storage.stats();
    const report = await blobs.gc({ dryRun: true });
    expect(report.unreachable.sort()).toEqual([...dropped].sort());
    const droppedRecords = await Promise.all(dropped.map((hash) => blobs.stat(hash)));
    expect(report.freedBytes).toBe(droppedRecords.reduce((sum, record) => sum + record.storedSize, 0));
    expect(await backend.storage.stats()).toEqual(before);
    const real = await blobs.gc();
    expect(real.freedBytes).toBe(report.freedBytes);
    expect((await backend.storage.stats()).blobCount).toBe(1);
  });

  it('reports a live blob whose delta base is missing, and roots not in storage, without crashing', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const base = await blobs.put(text('base'));
    const child = await blobs.put(text('child'), { baseHash: base });
    await backend.storage.deleteMany([base]);
    backend.roots.add(child).add('9'.repeat(64));
    const report = await blobs.gc({ dryRun: true });
    expect(report.missingBases).toEqual([{ hash: child, baseHash: base }]);
    expect(report.missingRoots).toEqual(['9'.repeat(64)]);
    expect(report.live).toBe(1);
  });

  it('reclaims pack space of swept blobs', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const hashes = await blobs.putMany(Array.from({ length: 30 }, (_, index) => text(`file ${index}`)));
    backend.roots.add(hashes[0]!);
    await blobs.gc();
    const stats = await backend.storage.stats();
    expect(stats.blobCount).toBe(1);
    expect(stats.footprintBytes).toBe(stats.storedBytes);
  });
});
