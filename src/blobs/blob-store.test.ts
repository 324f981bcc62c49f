import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { WaypointError } from '../model/index.js';
import { BlobStore } from './blob-store.js';
import { packBackend, recordStoredReads } from './fixtures/pack-backend.js';
import { removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';
import { hashContent } from '../model/index.js';
import { codeOf } from '../model/fixtures/error-code.js';

/** A 100 KB source-like text file as lines, deterministic. */
function sourceLines(): string[] {
  const lines: string[] = [];
  for (let index = 0; lines.join('\n').length < 100 * 1024; index++) {
    lines.push(`  const item${index} = await repository.load(${(index * 7919) % 10007}, { retries: ${index % 5}, label: "row-${index}" });`);
  }
  return lines;
}

afterAll(removeTempDirs);

describe('BlobStore', () => {
  it('hashes content with sha256 hex', () => {
    expect(hashContent(Buffer.alloc(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('beginPutMany: readable only after commit; a base handed in with the batch is not read back', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const lines = sourceLines();
    const before = Buffer.from(lines.join('\n'));
    const beforeHash = await blobs.put(before);
    lines[10] = 'changed';
    const after = Buffer.from(lines.join('\n'));
    const reads = recordStoredReads(backend);
    const pending = await blobs.beginPutMany([before, { content: after, baseHash: beforeHash }]);
    expect(pending.newBlobs).toBe(1);
    expect(await blobs.has(pending.hashes[1]!)).toBe(false);
    expect(reads).toHaveLength(0);
    expect(await pending.commit()).toEqual([beforeHash, hashContent(after)]);
    expect(await blobs.stat(hashContent(after))).toMatchObject({ encoding: 'delta', baseHash: beforeHash });
    expect((await blobs.get(hashContent(after))).equals(after)).toBe(true);

    const dropped = await blobs.beginPutMany([Buffer.from('never indexed')]);
    dropped.abort();
    expect(await blobs.has(dropped.hashes[0]!)).toBe(false);
    expect(await codeOf(dropped.commit())).toBe('INVALID_ARGUMENT');
  });

  it('round-trips any bytes exactly, empty content included', async () => {
    const blobs = new BlobStore(packBackend());
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 5000 }), async (array) => {
        const content = Buffer.from(array);
        const hash = await blobs.put(content);
        expect(hash).toBe(hashContent(content));
        expect((await blobs.get(hash)).equals(content)).toBe(true);
      }),
      { numRuns: 60 },
    );
    expect((await blobs.get(await blobs.put(Buffer.alloc(0)))).length).toBe(0);
  });

  it('stores identical content once', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const content = Buffer.from('same bytes '.repeat(100));
    const hashes = await blobs.putMany([content, content, { content }]);
    await blobs.put(content);
    expect(new Set(hashes).size).toBe(1);
    expect((await backend.storage.stats()).blobCount).toBe(1);
  });

  it('deflates text and keeps incompressible data raw', async () => {
    const blobs = new BlobStore(packBackend());
    const text = await blobs.stat(await blobs.put(Buffer.from(sourceLines().join('\n'))));
    expect(text.encoding).toBe('deflate');
    expect(text.storedSize).toBeLessThan(text.size / 3);
    const noise = await blobs.stat(await blobs.put(randomBytes(20_000)));
    expect(noise).toMatchObject({ encoding: 'raw', storedSize: 20_000, size: 20_000 });
  });

  it('stores 100 one-line edits of a 100 KB file in well under 1 MB', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const lines = sourceLines();
    const versions: Buffer[] = [Buffer.from(lines.join('\n'))];
    let previous = await blobs.put(versions[0]!);
    for (let edit = 1; edit <= 100; edit++) {
      lines[(edit * 37) % lines.length] = `  // edit ${edit}: changed this line`;
      const content = Buffer.from(lines.join('\n'));
      versions.push(content);
      previous = await blobs.put(content, { baseHash: previous });
    }
    const stats = await backend.storage.stats();
    expect(stats.blobCount).toBe(101);
    expect(stats.rawBytes).toBeGreaterThan(10_000_000);
    expect(stats.storedBytes).toBeLessThan(1024 * 1024);
    expect(stats.footprintBytes).toBeLessThan(1024 * 1024);
    const records = await backend.storage.listRecords();
    expect(Math.max(...records.map((record) => record.chainDepth))).toBeLessThanOrEqual(16);
    expect(records.filter((record) => record.encoding === 'delta').length).toBeGreaterThan(80);
    const read = await blobs.getMany(versions.map(hashContent));
    for (const content of versions) expect(read.get(hashContent(content))!.equals(content)).toBe(true);
  });

  it('numbers versions and bases each on the one with its lowest set bit cleared (skip-delta); past maxChainDepth a new line starts halfway down, or the version is stored whole', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend, { maxChainDepth: 3 });
    const first = Buffer.from('line\n'.repeat(2000));
    let previous = await blobs.put(first);
    const depths: number[] = [];
    const versions: Buffer[] = [];
    for (let edit = 1; edit <= 16; edit++) {
      const content = Buffer.from(`edit ${edit}\n${'line\n'.repeat(2000)}`);
      versions.push(content);
      previous = await blobs.put(content, { baseHash: previous });
      depths.push((await blobs.stat(previous)).chainDepth);
    }
    // Version n sits as deep as n has set bits (a delta spans n's lowest set bit of versions), until
    // version 15 would pass the limit: it starts a new line on the version at depth 1 of its chain.
    expect(depths).toEqual([1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 2, 2]);
    const records = await backend.storage.listRecords();
    expect(records.filter((record) => record.encoding !== 'delta')).toHaveLength(1);
    const byHash = new Map(records.map((record) => [record.hash, record]));
    expect(byHash.get(hashContent(versions[7]!))!.baseHash).toBe(hashContent(first));
    expect(byHash.get(hashContent(versions[11]!))!.baseHash).toBe(hashContent(versions[7]!));
    expect(byHash.get(hashContent(versions[14]!))!.baseHash).toBe(hashContent(versions[7]!));
    expect(byHash.get(hashContent(versions[15]!))!.baseHash).toBe(hashContent(versions[7]!));
    const read = await new BlobStore(backend, { maxChainDepth: 3 }).getMany(versions.map(hashContent));
    for (const content of versions) expect(read.get(hashContent(content))!.equals(content)).toBe(true);
    // Content that has nothing in common with its base is stored whole.
    previous = await blobs.put(randomBytes(4000), { baseHash: previous });
    expect((await blobs.stat(previous)).chainDepth).toBe(0);
  });

  it('uses a base stored earlier in the same batch and ignores an unknown base', async () => {
    const blobs = new BlobStore(packBackend());
    const base = Buffer.from('shared text line\n'.repeat(500));
    const next = Buffer.concat([base, Buffer.from('one more line\n')]);
    const [baseHash, nextHash] = await blobs.putMany([base, { content: next, baseHash: hashContent(base) }]);
    expect(await blobs.stat(nextHash!)).toMatchObject({ encoding: 'delta', baseHash, chainDepth: 1 });
    const orphan = await blobs.put(Buffer.from('x'.repeat(300)), { baseHash: 'f'.repeat(64) });
    expect(await blobs.stat(orphan)).toMatchObject({ baseHash: null, chainDepth: 0 });
  });

  it('answers has/stat and raises BLOB_NOT_FOUND for unknown hashes', async () => {
    const blobs = new BlobStore(packBackend());
    const hash = await blobs.put(Buffer.from('here'));
    expect(await blobs.has(hash)).toBe(true);
    expect(await blobs.has('0'.repeat(64))).toBe(false);
    expect(await codeOf(blobs.get('0'.repeat(64)))).toBe('BLOB_NOT_FOUND');
    expect(await codeOf(blobs.stat('0'.repeat(64)))).toBe('BLOB_NOT_FOUND');
  });

  it('never returns corrupt bytes: flipped pack bytes, bad deflate, missing delta base', async () => {
    const backend = packBackend();
    const db = (backend.storage as unknown as { db: import('better-sqlite3').Database }).db;
    const blobs = new BlobStore(backend);
    const text = Buffer.from(sourceLines().slice(0, 200).join('\n'));
    const raw = randomBytes(4000);
    const [textHash, rawHash] = await blobs.putMany([text, raw]);
    const edited = Buffer.concat([text, Buffer.from('\nappended')]);
    const editedHash = await blobs.put(edited, { baseHash: textHash });
    expect((await blobs.stat(editedHash)).encoding).toBe('delta');

    // Point the raw blob's row at other bytes of the same length: decodes fine, hash mismatches.
    db.prepare('UPDATE blob_index SET pack_offset = pack_offset + 1 WHERE hash = unhex(?)').run(rawHash);
    expect(await codeOf(blobs.get(rawHash!))).toBe('BLOB_CORRUPT');
    // Deflated bytes that are not a deflate stream.
    db.prepare(`UPDATE blob_index SET encoding = 2 WHERE hash = unhex(?)`).run(rawHash);
    db.prepare('UPDATE blob_index SET pack_offset = pack_offset - 1 WHERE hash = unhex(?)').run(rawHash);
    expect(await codeOf(blobs.get(rawHash!))).toBe('BLOB_CORRUPT');
    // A delta whose base is gone.
    db.prepare('DELETE FROM blob_index WHERE hash = unhex(?)').run(textHash);
    expect(await codeOf(blobs.get(editedHash))).toBe('BLOB_CORRUPT');
  });

  it('getManySettled: reads several, sharing delta bases, and reports a missing or corrupt one without failing the others', async () => {
    const backend = packBackend();
    const db = (backend.storage as unknown as { db: import('better-sqlite3').Database }).db;
    const blobs = new BlobStore(backend);
    const lines = sourceLines();
    const base = Buffer.from(lines.join('\n'));
    lines[3] = 'edited';
    const edited = Buffer.from(lines.join('\n'));
    const raw = randomBytes(4000);
    const baseHash = await blobs.put(base);
    const editedHash = await blobs.put(edited, { baseHash });
    const rawHash = await blobs.put(raw);
    db.prepare('UPDATE blob_index SET pack_offset = pack_offset + 1 WHERE hash = unhex(?)').run(rawHash);
    const reads = recordStoredReads(backend);
    const missing = '0'.repeat(64);
    const read = await blobs.getManySettled([editedHash, rawHash, missing, baseHash, editedHash]);
    expect([...read.keys()]).toEqual([editedHash, rawHash, missing, baseHash]);
    expect(read.get(editedHash)).toEqual({ status: 'fulfilled', value: edited });
    expect(read.get(baseHash)).toEqual({ status: 'fulfilled', value: base });
    const failed = (hash: string) => {
      const outcome = read.get(hash)!;
      return outcome.status === 'rejected' && WaypointError.is(outcome.reason) ? outcome.reason.code : outcome.status;
    };
    expect(failed(rawHash)).toBe('BLOB_CORRUPT');
    expect(failed(missing)).toBe('BLOB_NOT_FOUND');
    // The delta's base (a large content, read and verified when the delta was made) is served from memory.
    expect(reads).toHaveLength(2);
  });

  it('keeps recently read large contents: a version read again, or another version on the same chain, reads only what it lacks', async () => {
    const backend = packBackend();
    const lines = sourceLines();
    const versions = [Buffer.from(lines.join('\n'))];
    for (const row of [3, 400, 900]) {
      lines[row] = `edited row ${row}`;
      versions.push(Buffer.from(lines.join('\n')));
    }
    const writer = new BlobStore(backend);
    const hashes = [await writer.put(versions[0]!)];
    for (const version of versions.slice(1)) hashes.push(await writer.put(version, { baseHash: hashes[hashes.length - 1]! }));
    const stored = recordStoredReads(backend);
    const blobs = new BlobStore(backend);
    expect((await blobs.get(hashes[2]!)).equals(versions[2]!)).toBe(true);
    // Version 2 is a delta on version 0 (skip-delta), version 3 one on version 2.
    expect(stored).toEqual([hashes[0], hashes[2]]);
    stored.length = 0;
    const again = await blobs.get(hashes[2]!);
    expect(again.equals(versions[2]!)).toBe(true);
    expect(stored).toEqual([]);
    // A caller's copy: changing it changes nothing kept.
    again.fill(0);
    expect((await blobs.get(hashes[2]!)).equals(versions[2]!)).toBe(true);
    expect((await blobs.get(hashes[3]!)).equals(versions[3]!)).toBe(true);
    expect(stored).toEqual([hashes[3]]);
    // A blob gone from the index is not found, kept or not.
    const db = (backend.storage as unknown as { db: import('better-sqlite3').Database }).db;
    db.prepare('DELETE FROM blob_index WHERE hash = unhex(?)').run(hashes[3]);
    await expect(blobs.get(hashes[3]!)).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
  });

  it('keeps recently read small contents too: reading them again reads nothing stored, and a blob gone from the index is still not found', async () => {
    const backend = packBackend();
    const writer = new BlobStore(backend);
    const contents = Array.from({ length: 30 }, (_, index) => Buffer.from(`export const value${index} = ${index};\n`.repeat(1 + (index % 7))));
    const hashes = await writer.putMany(contents.map((content) => ({ content })));
    const stored = recordStoredReads(backend);
    const blobs = new BlobStore(backend);
    const first = await blobs.getManySettled(hashes);
    expect(hashes.map((hash) => (first.get(hash) as PromiseFulfilledResult<Buffer>).value)).toEqual(contents);
    expect(new Set(stored)).toEqual(new Set(hashes));
    stored.length = 0;
    const again = await blobs.getManySettled(hashes);
    expect(hashes.map((hash) => (again.get(hash) as PromiseFulfilledResult<Buffer>).value)).toEqual(contents);
    expect(stored).toEqual([]);
    const db = (backend.storage as unknown as { db: import('better-sqlite3').Database }).db;
    db.prepare('DELETE FROM blob_index WHERE hash = unhex(?)').run(hashes[0]);
    await expect(blobs.get(hashes[0]!)).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
  });

  it('getManySettled readOnly: a kept content is handed out as is, not copied; a plain read still gets its own copy', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const content = Buffer.from('export const kept = true;\n'.repeat(40));
    const [hash] = await blobs.putMany([{ content }]);
    await blobs.get(hash!);
    const value = (read: Map<string, PromiseSettledResult<Buffer>>) => (read.get(hash!) as PromiseFulfilledResult<Buffer>).value;
    const first = value(await blobs.getManySettled([hash!], { readOnly: true }));
    const second = value(await blobs.getManySettled([hash!], { readOnly: true }));
    expect(first).toEqual(content);
    // The same bytes in memory, not two copies of a content that may be megabytes.
    expect(second.buffer).toBe(first.buffer);
    const copy = value(await blobs.getManySettled([hash!]));
    expect(copy.buffer).not.toBe(first.buffer);
    copy.fill(0);
    expect(await blobs.get(hash!)).toEqual(content);
  });

  it('a verified item serves as the delta base of another without being read back', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const lines = sourceLines();
    const before = Buffer.from(lines.join('\n'));
    const beforeHash = await blobs.put(before);
    lines[20] = 'changed by someone';
    const after = Buffer.from(lines.join('\n'));
    const reads = recordStoredReads(backend);
    await blobs.putMany([
      { content: after, hash: hashContent(after), verified: true, baseHash: beforeHash },
      { content: before, hash: beforeHash, verified: true },
    ]);
    expect(reads).toHaveLength(0);
    expect(await blobs.stat(hashContent(after))).toMatchObject({ encoding: 'delta', baseHash: beforeHash });
    // Without `verified`, a caller-given hash is not trusted as a base: the base is read from storage.
    lines[21] = 'changed again';
    const again = Buffer.from(lines.join('\n'));
    await blobs.putMany([
      { content: again, hash: hashContent(again), baseHash: beforeHash },
      { content: before, hash: beforeHash },
    ]);
    expect(reads).toHaveLength(1);
    expect((await blobs.get(hashContent(again))).equals(again)).toBe(true);
  });

  it('trusts a hash the caller already computed, and a wrong one is caught on read', async () => {
    const blobs = new BlobStore(packBackend());
    const content = Buffer.from('scanned bytes '.repeat(20));
    const [hash] = await blobs.putMany([{ content, hash: hashContent(content) }]);
    expect((await blobs.get(hash!)).equals(content)).toBe(true);
    const [wrong] = await blobs.putMany([{ content: Buffer.from('other bytes '.repeat(20)), hash: 'a'.repeat(64) }]);
    expect(await codeOf(blobs.get(wrong!))).toBe('BLOB_CORRUPT');
  });
});
