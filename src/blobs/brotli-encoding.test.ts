import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { makeTempDir, openBlobDatabase, removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';
import { PackBlobStorage } from '../store/sqlite/blobs/index.js';
import {
  buildDictionary,
  decodeDeltaBlob,
  decodeDictionaryDelta,
  decodeWhole,
  deltaSeq,
  encodeDeltaBlob,
  encodeForGood,
  encodeWhole,
  encodeWithDictionary,
} from './blob-codec.js';
import { BlobStore, type BlobStoreBackend } from './blob-store.js';
import { codeOf } from '../model/fixtures/error-code.js';

import { lockText, sourceText } from './fixtures/sample-texts.js';

afterAll(removeTempDirs);

describe('Brotli in the blob codec', () => {
  it('every encoding round-trips: raw, deflate, Brotli whole, plain, deflated, Brotli and numbered Brotli deltas, dictionary deltas', () => {
    const large = sourceText(200_000);
    const brotliWhole = encodeForGood(large);
    expect(brotliWhole.encoding).toBe('deflate');
    // Smaller than deflate at level 6, so kept as Brotli behind its marker byte.
    expect(brotliWhole.bytes.length).toBeLessThan(encodeWhole(large, { level: 6 }).bytes.length);
    expect(brotliWhole.bytes[0]).toBe(0x06);
    expect(decodeWhole('deflate', brotliWhole.bytes).equals(large)).toBe(true);

    const small = sourceText(300);
    const deflated = encodeForGood(small);
    expect(deflated.encoding).toBe('deflate');
    expect(deflated.bytes[0]).not.toBe(0x06);
    expect(decodeWhole('deflate', deflated.bytes).equals(small)).toBe(true);
    const noise = randomBytes(5000);
    expect(encodeForGood(noise)).toEqual({ encoding: 'raw', bytes: noise });
    expect(decodeWhole('raw', noise).equals(noise)).toBe(true);

    const base = lockText(1);
    const next = lockText(2);
    const flags = new Set<number>();
    for (const seq of [0, 5]) {
      const delta = encodeDeltaBlob(base, next, seq);
      flags.add(delta.bytes[0]!);
      expect(deltaSeq(delta.bytes)).toBe(seq);
      expect(decodeDeltaBlob(base, delta.bytes).equals(next)).toBe(true);
    }
    // A large delta body goes to Brotli (flag 5, numbered 6).
    expect([...flags].sort()).toEqual([5, 6]);
    const tiny = encodeDeltaBlob(small, Buffer.concat([small, Buffer.from('x')]));
    expect(tiny.bytes[0]).toBe(0);
    expect(decodeDeltaBlob(small, tiny.bytes).equals(Buffer.concat([small, Buffer.from('x')]))).toBe(true);

    const dictionary = buildDictionary(Array.from({ length: 40 }, (_, index) => sourceText(2000, index)))!;
    const member = sourceText(1500, 99);
    const dictionaryDelta = encodeWithDictionary(dictionary, member);
    expect(decodeDictionaryDelta(dictionary, dictionaryDelta.bytes).equals(member)).toBe(true);
  });

  it('a store with every encoding reads back verified after compress, GC and reopen', async () => {
    const dir = makeTempDir();
    const open = () => {
      const db = openBlobDatabase(join(dir, 'store.db'));
      const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
      const backend: BlobStoreBackend = { blobs: storage, blobRoots: async () => new Set(roots) };
      return { db, storage, blobs: new BlobStore(backend) };
    };
    const roots = new Set<string>();
    const first = open();
    const large = sourceText(300_000);
    const smallFiles = Array.from({ length: 40 }, (_, index) => sourceText(1500, index));
    const lockVersions = [lockText(1), lockText(2), lockText(3)];
    const noise = randomBytes(3000);
    const loose = sourceText(2000, 7);
    const contents = [large, ...smallFiles, ...lockVersions, noise, loose];
    await first.blobs.putMany(smallFiles, { compression: 'deferred' });
    await first.blobs.put(large);
    let previous = await first.blobs.put(lockVersions[0]!);
    for (const version of lockVersions.slice(1)) previous = await first.blobs.put(version, { baseHash: previous });
    await first.blobs.putMany([noise, loose], { compression: 'eager' });
    const dead = await first.blobs.put(sourceText(70_000, 3));
    for (const content of contents) roots.add(hashContent(content));

    const report = await first.blobs.gc();
    expect(report.unreachable).toEqual([dead]);
    expect(await first.blobs.has(dead)).toBe(false);
    const encodings = new Set((await first.storage.listRecords()).map((record) => record.encoding));
    expect([...encodings].sort()).toEqual(['deflate', 'delta', 'raw']);
    const largeRecord = await first.blobs.stat(hashContent(large));
    expect(largeRecord.storedSize).toBeLessThan(encodeWhole(large, { level: 6 }).bytes.length);
    first.storage.close();
    first.db.close();

    const second = open();
    for (const content of contents) expect((await second.blobs.get(hashContent(content))).equals(content)).toBe(true);
    second.storage.close();
    second.db.close();
  });

  it('a corrupt Brotli body, whole or delta, is BLOB_CORRUPT like a corrupt deflate body', async () => {
    const dir = makeTempDir();
    const db = openBlobDatabase(join(dir, 'store.db'));
    const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
    const fresh = () => new BlobStore({ blobs: storage, blobRoots: async () => new Set() });
    const blobs = fresh();
    const largeContent = sourceText(300_000);
    const large = await blobs.put(largeContent);
    await blobs.compress();
    expect((await blobs.stat(large)).storedSize).toBeLessThan(encodeWhole(largeContent, { level: 6 }).bytes.length);
    const [deflated, lockBase] = await blobs.putMany([sourceText(3000, 5), lockText(1)], { compression: 'eager' });
    const lockNext = await blobs.putMany([{ content: lockText(2), baseHash: lockBase! }], { compression: 'eager' });
    expect((await blobs.stat(deflated!)).encoding).toBe('deflate');
    expect((await blobs.stat(lockNext[0]!)).encoding).toBe('delta');
    const spoil = (hash: string) => {
      const row = db
        .prepare(
          'SELECT p.name AS name, i.pack_offset AS offset, i.stored_size AS length FROM blob_index i JOIN blob_packs p ON p.id = i.pack WHERE i.hash = unhex(?)',
        )
        .get(hash) as { name: string; offset: number; length: number };
      const fd = openSync(join(dir, 'packs', row.name), 'r+');
      const bytes = Buffer.alloc(row.length);
      readSync(fd, bytes, 0, row.length, row.offset);
      // Keep the first two bytes (marker or flag, and the start of the stream); overwrite the middle.
      for (let index = Math.floor(row.length / 3); index < Math.floor(row.length / 3) + 16; index++) bytes[index] = bytes[index]! ^ 0x5a;
      writeSync(fd, bytes, 0, row.length, row.offset);
      closeSync(fd);
    };
    for (const hash of [large, deflated!, lockNext[0]!]) {
      expect(await codeOf(fresh().get(hash))).toBeUndefined();
      spoil(hash);
      storage.close();
      expect(await codeOf(fresh().get(hash))).toBe('BLOB_CORRUPT');
    }
    storage.close();
    db.close();
  });
});
