import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { makeTempDir, openBlobDatabase, removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';
import { PackBlobStorage } from '../store/sqlite/blobs/index.js';
import { BlobStore, type BlobStoreBackend } from './blob-store.js';

afterAll(removeTempDirs);

/** Source-like text of about `bytes` bytes, deterministic for a given `salt`. */
function sourceText(bytes: number, salt = 0): Buffer {
  const lines: string[] = [];
  for (let index = 0; lines.length * 60 < bytes; index++) {
    lines.push(`export const value${index} = await load(${(index * 7919 + salt) % 10007}, { label: "row-${index % 97}" });`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** A lock-file-like text whose versions differ in a few hundred lines: its deltas get Brotli bodies. */
function lockText(version: number): Buffer {
  const lines: string[] = [];
  for (let index = 0; index < 3000; index++) {
    const bumped = index % 10 === version % 10 ? version : 0;
    lines.push(
      `  "node_modules/package-${index}": { "version": "1.${index % 40}.${bumped}", "integrity": "sha512-${hashContent(Buffer.from(`${index}:${bumped}`)).slice(0, 40)}" },`,
    );
  }
  return Buffer.from(`{\n${lines.join('\n')}\n}\n`);
}

/** A store in `dir` whose GC roots are `roots`; opened anew for every step, as a new process would. */
function openStore(dir: string, roots: Set<string>) {
  const db = openBlobDatabase(join(dir, 'store.db'));
  const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
  const backend: BlobStoreBackend = { blobs: storage, blobRoots: async () => new Set(roots) };
  return {
    db,
    storage,
    blobs: new BlobStore(backend),
    close() {
      storage.close();
      db.close();
    },
  };
}

/** A small whole blob deflated at level 1 and a lock-file delta with a Brotli body, both written eagerly (never staged). */
async function writeEagerBlobs(dir: string, roots: Set<string>) {
  const store = openStore(dir, roots);
  const contents = [sourceText(6000, 1), lockText(1), lockText(2)];
  const [whole, lockBase] = await store.blobs.putMany([contents[0]!, contents[1]!], { compression: 'eager' });
  const [delta] = await store.blobs.putMany([{ content: contents[2]!, baseHash: lockBase! }], { compression: 'eager' });
  for (const hash of [whole!, lockBase!, delta!]) roots.add(hash);
  const before = { whole: await store.blobs.stat(whole!), delta: await store.blobs.stat(delta!) };
  expect(before.whole.encoding).toBe('deflate');
  expect(before.delta.encoding).toBe('delta');
  // As written: a level-1 deflate stream, and a delta body Brotli-compressed at quality 10 (flag 5, numbered 6).
  expect((await store.storage.readStored(whole!))[0]! & 0b110).not.toBe(0b110);
  expect([5, 6]).toContain((await store.storage.readStored(delta!))[0]);
  store.close();
  return { contents, hashes: [whole!, lockBase!, delta!], whole: whole!, delta: delta!, before };
}

describe('GC re-encodes blobs compressed as they were written', () => {
  it('a level-1 whole blob and a Brotli delta body get smaller for good, read back verified after reopen and GC, once', async () => {
    const dir = makeTempDir();
    const roots = new Set<string>();
    const written = await writeEagerBlobs(dir, roots);

    const store = openStore(dir, roots);
    const report = await store.blobs.gc();
    expect(report.unreachable).toEqual([]);
    expect(report.compressed?.blobsReencoded).toBeGreaterThanOrEqual(2);
    const whole = await store.blobs.stat(written.whole);
    const delta = await store.blobs.stat(written.delta);
    // Same encoding and base (GC's mark and sweep see the same graph), fewer bytes.
    expect(whole).toMatchObject({ encoding: 'deflate', baseHash: null });
    expect(whole.storedSize).toBeLessThan(written.before.whole.storedSize);
    expect(delta).toMatchObject({ encoding: 'delta', baseHash: written.before.delta.baseHash, chainDepth: written.before.delta.chainDepth });
    expect(delta.storedSize).toBeLessThan(written.before.delta.storedSize);
    // Marked done: Brotli (0x06) or deflate for good (0x07) for the whole blob, flag 7 (numbered 8) for the delta.
    expect([0x06, 0x07]).toContain((await store.storage.readStored(written.whole))[0]);
    expect([7, 8]).toContain((await store.storage.readStored(written.delta))[0]);
    store.close();

    const reopened = openStore(dir, roots);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    const again = await reopened.blobs.gc();
    expect(again.unreachable).toEqual([]);
    // Nothing is offered twice: the second GC re-encodes nothing and the sizes stay.
    expect(again.compressed?.blobsReencoded ?? 0).toBe(0);
    expect((await reopened.blobs.stat(written.whole)).storedSize).toBe(whole.storedSize);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    reopened.close();
  });

  it('a failure between the durable new bytes and the index update leaves the old encodings readable', async () => {
    const dir = makeTempDir();
    const roots = new Set<string>();
    const written = await writeEagerBlobs(dir, roots);

    const store = openStore(dir, roots);
    // The new bytes are appended and fsynced, then the transaction that repoints the rows fails.
    store.db.exec(`CREATE TRIGGER fail_repoint BEFORE UPDATE OF stored_size ON blob_index BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    await expect(store.blobs.gc()).rejects.toThrow(/injected failure/);
    store.db.exec('DROP TRIGGER fail_repoint');
    store.close();

    const reopened = openStore(dir, roots);
    expect(await reopened.blobs.stat(written.whole)).toEqual(written.before.whole);
    expect(await reopened.blobs.stat(written.delta)).toEqual(written.before.delta);
    expect([5, 6]).toContain((await reopened.storage.readStored(written.delta))[0]);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    // The next GC finishes the job; the orphan bytes of the failed attempt are swept with the old pack.
    const report = await reopened.blobs.gc();
    expect(report.compressed?.blobsReencoded).toBeGreaterThanOrEqual(2);
    expect((await reopened.blobs.stat(written.whole)).storedSize).toBeLessThan(written.before.whole.storedSize);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    reopened.close();
  });
});
