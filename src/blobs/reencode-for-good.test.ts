import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, openBlobDatabase, removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';
import { PackBlobStorage } from '../store/sqlite/blobs/index.js';
import { BlobStore, type BlobStoreBackend } from './blob-store.js';

import { lockText, sourceText } from './fixtures/sample-texts.js';

afterAll(removeTempDirs);

/** About `bytes` of statement-like lines drawn from a small vocabulary by a fixed pseudo-random sequence: Brotli quality 11 beats 9 and 10 on it. */
function variedText(bytes: number): Buffer {
  const words = [
    'const',
    'let',
    'return',
    'await',
    'function',
    'value',
    'index',
    'label',
    'load',
    'export',
    'import',
    'from',
    'if',
    'else',
    'for',
    'while',
    'row',
    'item',
    'count',
    'total',
  ];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const lines: string[] = [];
  let length = 0;
  while (length < bytes) {
    const parts: string[] = [];
    for (let count = 3 + Math.floor(next() * 8); count > 0; count--)
      parts.push(words[Math.floor(next() * words.length)]! + (next() < 0.3 ? String(Math.floor(next() * 1000)) : ''));
    const line = `${'  '.repeat(Math.floor(next() * 4))}${parts.join(' ')};`;
    lines.push(line);
    length += line.length + 1;
  }
  return Buffer.from(lines.join('\n'));
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
  const contents = [sourceText(6000, 1), lockText(1), lockText(2), variedText(300_000)];
  const [whole, lockBase] = await store.blobs.putMany([contents[0]!, contents[1]!], { compression: 'eager' });
  const [delta] = await store.blobs.putMany([{ content: contents[2]!, baseHash: lockBase! }], { compression: 'eager' });
  // A large blob is staged and given Brotli quality 9 or 10 by the compress pass.
  const large = await store.blobs.put(contents[3]!);
  await store.blobs.compress();
  expect((await store.storage.readStored(large))[0]).toBe(0x06);
  for (const hash of [whole!, lockBase!, delta!, large]) roots.add(hash);
  const before = { whole: await store.blobs.stat(whole!), delta: await store.blobs.stat(delta!), large: await store.blobs.stat(large) };
  expect(before.whole.encoding).toBe('deflate');
  expect(before.delta.encoding).toBe('delta');
  // As written: a level-1 deflate stream, and a delta body Brotli-compressed at quality 10 (flag 5, numbered 6).
  expect((await store.storage.readStored(whole!))[0]! & 0b110).not.toBe(0b110);
  expect([5, 6]).toContain((await store.storage.readStored(delta!))[0]);
  store.close();
  return { contents, hashes: [whole!, lockBase!, delta!, large], whole: whole!, delta: delta!, large, before };
}

describe('GC re-encodes blobs compressed as they were written, or at a lower Brotli quality', () => {
  it('a level-1 whole blob, a Brotli delta body and a quality-10 large blob get smaller for good, read back verified after reopen and GC, once', async () => {
    const dir = makeTempDir();
    const roots = new Set<string>();
    const written = await writeEagerBlobs(dir, roots);

    const store = openStore(dir, roots);
    const report = await store.blobs.gc();
    expect(report.unreachable).toEqual([]);
    expect(report.compressed?.blobsReencoded).toBeGreaterThanOrEqual(3);
    const large = await store.blobs.stat(written.large);
    expect(large.storedSize).toBeLessThan(written.before.large.storedSize);
    expect((await store.storage.readStored(written.large))[0]).toBe(0x0e);
    const whole = await store.blobs.stat(written.whole);
    const delta = await store.blobs.stat(written.delta);
    // Same encoding and base (GC's mark and sweep see the same graph), fewer bytes.
    expect(whole).toMatchObject({ encoding: 'deflate', baseHash: null });
    expect(whole.storedSize).toBeLessThan(written.before.whole.storedSize);
    expect(delta).toMatchObject({ encoding: 'delta', baseHash: written.before.delta.baseHash, chainDepth: written.before.delta.chainDepth });
    expect(delta.storedSize).toBeLessThan(written.before.delta.storedSize);
    // Marked done: Brotli (0x0e) or deflate for good (0x07) for the whole blob, flag 7 (numbered 8) for the delta.
    expect([0x0e, 0x07]).toContain((await store.storage.readStored(written.whole))[0]);
    expect([7, 8]).toContain((await store.storage.readStored(written.delta))[0]);
    store.close();

    const reopened = openStore(dir, roots);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    const again = await reopened.blobs.gc();
    expect(again.unreachable).toEqual([]);
    // Nothing is offered twice: the second GC re-encodes nothing and the sizes stay.
    expect(again.compressed?.blobsReencoded ?? 0).toBe(0);
    expect((await reopened.blobs.stat(written.whole)).storedSize).toBe(whole.storedSize);
    expect((await reopened.blobs.stat(written.large)).storedSize).toBe(large.storedSize);
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
    expect(await reopened.blobs.stat(written.large)).toEqual(written.before.large);
    expect([5, 6]).toContain((await reopened.storage.readStored(written.delta))[0]);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    // The next GC finishes the job; the orphan bytes of the failed attempt are swept with the old pack.
    const report = await reopened.blobs.gc();
    expect(report.compressed?.blobsReencoded).toBeGreaterThanOrEqual(3);
    expect((await reopened.blobs.stat(written.whole)).storedSize).toBeLessThan(written.before.whole.storedSize);
    for (const [index, hash] of written.hashes.entries()) expect((await reopened.blobs.get(hash)).equals(written.contents[index]!)).toBe(true);
    reopened.close();
  });
});
