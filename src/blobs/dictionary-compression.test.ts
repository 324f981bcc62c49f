import { afterAll, describe, expect, it } from 'vitest';
import { hashContent, WaypointError } from '../model/index.js';
import { removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';
import { encodeWhole } from './blob-codec.js';
import { BlobStore } from './blob-store.js';
import { packBackend } from './fixtures/pack-backend.js';

afterAll(removeTempDirs);

const WORDS = ['import', 'export', 'const', 'return', 'function', 'await', 'interface', 'string', 'number', 'Buffer', 'readonly', 'options'];

/** Small source-like files, each different but sharing the vocabulary and idioms of one code base. */
function sourceFiles(count: number): Buffer[] {
  let seed = 12345;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  return Array.from({ length: count }, (_, file) => {
    const lines = [`// module ${file}`, `import { ${WORDS[next() % WORDS.length]} } from './shared-helpers.js';`];
    for (let line = 0; line < 20 + (next() % 30); line++) {
      lines.push(`export async function handle${file}x${line}(options: { path: string; size: number }): Promise<Buffer> {`);
      lines.push(`  const value${next() % 1000} = await readBlobContents(options.path, ${next() % 4096});`);
      lines.push(`  return Buffer.from(${WORDS[next() % WORDS.length]}, 'utf8');\n}`);
    }
    return Buffer.from(`${lines.join('\n')}\n`);
  });
}

describe('compress pass with a shared dictionary', () => {
  it('stores small similar files smaller than deflating each alone, and reads every one back verified', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const files = sourceFiles(400);
    await blobs.putMany(files, { compression: 'deferred' });
    const report = await blobs.compress();
    expect(report.pendingBlobs).toBe(0);

    const aloneBytes = files.reduce((sum, content) => sum + encodeWhole(content, { level: 6 }).bytes.length, 0);
    const stats = await backend.storage.stats();
    // The dictionary blob is counted in: the whole store is still smaller than each file deflated alone (level 6).
    expect(stats.storedBytes).toBeLessThan(aloneBytes * 0.85);
    const records = await backend.storage.listRecords();
    const bases = new Set(records.filter((record) => record.encoding === 'delta').map((record) => record.baseHash));
    expect(bases.size).toBe(1);
    const dictionary = records.find((record) => bases.has(record.hash))!;
    expect(dictionary.encoding === 'delta').toBe(false);
    expect(files.some((content) => hashContent(content) === dictionary.hash)).toBe(false);

    // A fresh reader (no cached dictionary) and the same one twice.
    for (const reader of [new BlobStore(backend), blobs, blobs]) {
      for (const content of files) expect((await reader.get(hashContent(content))).equals(content)).toBe(true);
    }
  });

  it('GC keeps the dictionary while a kept blob needs it, and sweeps it with the last one', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const files = sourceFiles(100);
    await blobs.putMany(files, { compression: 'deferred' });
    await blobs.compress();
    const kept = files.slice(0, 3).map(hashContent);
    expect((await backend.storage.getRecord(kept[0]!))!.encoding).toBe('delta');
    for (const hash of kept) backend.roots.add(hash);

    await blobs.gc();
    expect((await backend.storage.stats()).blobCount).toBe(kept.length + 1);
    for (const [index, hash] of kept.entries()) expect((await new BlobStore(backend).get(hash)).equals(files[index]!)).toBe(true);

    backend.roots.clear();
    await blobs.gc();
    expect((await backend.storage.stats()).blobCount).toBe(0);
  });

  it('a later version stored as a copy/insert delta on top of a dictionary-compressed one reads back exactly', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const files = sourceFiles(200);
    await blobs.putMany(files, { compression: 'deferred' });
    await blobs.compress();
    const first = hashContent(files[7]!);
    expect((await backend.storage.getRecord(first))!.encoding).toBe('delta');
    // Three more versions of that file, each a small edit of the one before: a chain ending in the dictionary delta.
    let previous = first;
    let content = files[7]!;
    const versions: Buffer[] = [];
    for (let version = 0; version < 3; version++) {
      content = Buffer.concat([content, Buffer.from(`export const edit${version} = ${version};\n`)]);
      previous = await blobs.put(content, { baseHash: previous });
      versions.push(content);
    }
    const top = (await backend.storage.getRecord(previous))!;
    expect(top.encoding).toBe('delta');
    expect((await backend.storage.getRecord(hashContent(versions[0]!)))!.baseHash).toBe(first);
    for (const reader of [new BlobStore(backend), new BlobStore(backend)]) {
      for (const expected of [...versions].reverse()) expect((await reader.get(hashContent(expected))).equals(expected)).toBe(true);
    }
  });

  it('a blob whose dictionary is missing reads as BLOB_CORRUPT, never as wrong bytes', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const files = sourceFiles(50);
    await blobs.putMany(files, { compression: 'deferred' });
    await blobs.compress();
    const hash = hashContent(files[0]!);
    const record = (await backend.storage.getRecord(hash))!;
    expect(record.encoding).toBe('delta');
    await backend.storage.deleteMany([record.baseHash!]);
    const error = await new BlobStore(backend).get(hash).catch((caught: unknown) => caught);
    expect(WaypointError.is(error) && error.code).toBe('BLOB_CORRUPT');
  });
});
