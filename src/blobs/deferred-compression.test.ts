import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, readdirSync, readSync, closeSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { WaypointError, hashContent } from '../model/index.js';
import { blobContent, makeTempDir, openBlobDatabase, removeTempDirs } from '../store/sqlite/blobs/fixtures/blob-test-database.js';
import { PackBlobStorage } from '../store/sqlite/blobs/index.js';
import { BlobStore, DEFERRED_BATCH_BYTES } from './blob-store.js';
import { canStage } from './deferred-compression.js';
import type { StagingBlobStorage } from '../store/store.js';
import { packBackend } from './fixtures/pack-backend.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const childScript = join(here, 'fixtures', 'compress-child.ts');

// The SQLite backend provides the staging capability (checked at compile time too).
const _capability: (storage: PackBlobStorage) => StagingBlobStorage = (storage) => storage;
void _capability;

const isStaging = (name: string) => name.endsWith('.raw.pack');
const texts = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => blobContent(prefix, index));

async function expectAll(blobs: BlobStore, contents: Buffer[]) {
  for (const content of contents) expect((await blobs.get(hashContent(content))).equals(content)).toBe(true);
}

function start(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', childScript, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolvePromise) => child.on('exit', (code, signal) => resolvePromise({ code, signal, stderr })));
}

function waitForOutput(child: ChildProcess, prefix: string): Promise<void> {
  let output = '';
  return new Promise((resolvePromise, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.split('\n').some((line) => line.startsWith(prefix))) resolvePromise();
    });
    child.on('exit', () => reject(new Error(`child exited before printing "${prefix}"`)));
  });
}

function openStore(dir: string) {
  const db = openBlobDatabase(join(dir, 'store.db'));
  const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
  return { db, storage, blobs: new BlobStore({ blobs: storage, blobRoots: async () => new Set<string>() }) };
}

afterAll(removeTempDirs);

describe('BlobStore raw first, compress later', () => {
  it('round-trips any bytes stored deferred, before and after the compress pass', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    expect(canStage(backend.blobs)).toBe(true);
    const contents: Buffer[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 4000 }), { maxLength: 6 }), async (arrays) => {
        const batch = arrays.map((array) => Buffer.from(array));
        const hashes = await blobs.putMany(batch, { compression: 'deferred' });
        for (const [index, content] of batch.entries()) expect(hashes[index]).toBe(hashContent(content));
        for (const content of batch) expect((await blobs.get(hashContent(content))).equals(content)).toBe(true);
        contents.push(...batch);
      }),
      { numRuns: 40 },
    );
    await blobs.compress();
    expect(await blobs.compressionBacklog()).toEqual({ blobs: 0, bytes: 0 });
    await expectAll(blobs, contents);
  });

  it('stores a deferred batch raw, then compress deflates it: footprint shrinks, every read verified', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const binary = [randomBytes(5000), randomBytes(7000)];
    const contents = [...texts('defer', 200), ...binary];
    await blobs.putMany(contents, { compression: 'deferred' });
    for (const content of contents) expect((await blobs.stat(hashContent(content))).encoding).toBe('raw');
    const before = await backend.storage.stats();
    expect(before.storedBytes).toBe(before.rawBytes);

    const report = await blobs.compress();
    expect(report).toMatchObject({ blobsMoved: contents.length, blobsDeflated: 200, packsRemoved: 1, pendingBlobs: 0 });
    const after = await backend.storage.stats();
    expect(after.footprintBytes).toBeLessThan(before.footprintBytes / 4);
    expect(after.footprintBytes).toBe(after.storedBytes);
    for (const content of binary) expect((await blobs.stat(hashContent(content))).encoding).toBe('raw');
    expect((await blobs.stat(hashContent(contents[0]!))).encoding).toBe('deflate');
    await expectAll(blobs, contents);
    expect(readdirSync(join(backend.dir, 'packs')).filter(isStaging)).toEqual([]);
  });

  it('auto: a batch past DEFERRED_BATCH_BYTES is staged, a small one is deflated at once', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    await blobs.putMany(texts('small', 20));
    expect(await blobs.compressionBacklog()).toEqual({ blobs: 0, bytes: 0 });
    const large: Buffer[] = [];
    for (let index = 0, bytes = 0; bytes < DEFERRED_BATCH_BYTES; index++) {
      large.push(blobContent('large', index));
      bytes += large.at(-1)!.length;
    }
    await blobs.putMany(large);
    expect((await blobs.compressionBacklog()).blobs).toBe(large.length);
    await blobs.putMany(texts('eager', 5), { compression: 'eager' });
    expect((await blobs.compressionBacklog()).blobs).toBe(large.length);
  });

  it('keeps deltas eager in a deferred batch, also against a base staged in the same batch', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const base = Buffer.from(Array.from({ length: 2000 }, (_, line) => `line ${line} of the base file`).join('\n'));
    const next = Buffer.from(base.toString().replace('line 1000 of', 'line 1000 (edited) of'));
    const [baseHash, nextHash] = await blobs.putMany([{ content: base }, { content: next, baseHash: hashContent(base) }], { compression: 'deferred' });
    expect((await blobs.stat(baseHash!)).encoding).toBe('raw');
    expect(await blobs.stat(nextHash!)).toMatchObject({ encoding: 'delta', baseHash });
    await blobs.compress();
    expect((await blobs.stat(baseHash!)).encoding).toBe('deflate');
    expect((await blobs.get(nextHash!)).equals(next)).toBe(true);
  });

  it('streams a deferred batch: readable only after commit, compressed by gc', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const contents = texts('stream', 100);
    const batch = blobs.openDeferredBatch()!;
    for (const content of contents) batch.add(content, hashContent(content));
    expect(await blobs.has(hashContent(contents[0]!))).toBe(false);
    await batch.commit();
    await expectAll(blobs, contents);
    for (const content of contents) backend.roots.add(hashContent(content));

    const dry = await blobs.gc({ dryRun: true });
    expect(dry.compressed).toBeUndefined();
    expect(await blobs.compressionBacklog()).toMatchObject({ blobs: 100 });
    const skipped = await blobs.gc({ compress: false });
    expect(skipped.compressed).toBeUndefined();
    const report = await blobs.gc();
    expect(report.compressed).toMatchObject({ blobsMoved: 100, pendingBlobs: 0 });
    await expectAll(blobs, contents);
  });

  it('reads racing the compress pass in the same process all return the exact content', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const contents = texts('race', 1500); // more than one 8 MiB chunk, so the pass yields in between
    await blobs.putMany(contents, { compression: 'deferred' });
    let done = false;
    const reads = (async () => {
      let rounds = 0;
      while (!done || rounds === 0) {
        for (let index = rounds % 7; index < contents.length; index += 7) {
          expect((await blobs.get(hashContent(contents[index]!))).equals(contents[index]!)).toBe(true);
          // Storage calls resolve as microtasks; let the pass's next chunk (a macrotask) run now and then.
          if (index % 70 === rounds % 7) await new Promise((resolvePromise) => setImmediate(resolvePromise));
        }
        rounds++;
      }
      return rounds;
    })();
    const report = await blobs.compress();
    done = true;
    expect(await reads).toBeGreaterThan(0);
    expect(report.pendingBlobs).toBe(0);
    await expectAll(blobs, contents);
  });

  it('a staged blob whose bytes went bad is still refused on read after the compress pass', async () => {
    const backend = packBackend();
    const blobs = new BlobStore(backend);
    const contents = texts('bad', 10);
    await blobs.putMany(contents, { compression: 'deferred' });
    const packDir = join(backend.dir, 'packs');
    const [staging] = readdirSync(packDir).filter(isStaging);
    const fd = openSync(join(packDir, staging!), 'r+');
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, 100);
    writeSync(fd, Buffer.from([byte[0]! ^ 0xff]), 0, 1, 100);
    closeSync(fd);
    await blobs.compress();
    const error = await blobs.get(hashContent(contents[0]!)).catch((caught: unknown) => caught);
    expect(WaypointError.is(error) && error.code).toBe('BLOB_CORRUPT');
    await expectAll(blobs, contents.slice(1));
  });
});

describe('BlobStore compress pass with other processes', () => {
  it('a compress pass killed with SIGKILL leaves every indexed blob readable; the next pass finishes the job', async () => {
    const dir = makeTempDir();
    const { blobs, storage, db } = openStore(dir);
    const contents = texts('killed', 4800); // about 48 MiB: several 8 MiB chunks
    await blobs.putMany(contents, { compression: 'deferred' });
    storage.close();
    db.close();

    const child = start(['compress', join(dir, 'store.db'), join(dir, 'packs')]);
    const exit = exited(child);
    await waitForOutput(child, 'moved ');
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 40));
    child.kill('SIGKILL');
    const result = await exit;
    // On a fast machine the child may finish first; the checks below hold either way.
    expect(result.signal === 'SIGKILL' || result.code === 0, result.stderr).toBe(true);

    const after = openStore(dir);
    // Besides the contents, only the compress pass's dictionaries, each the base of some blob.
    const records = await after.storage.listRecords();
    const known = new Set(contents.map(hashContent));
    const extra = records.filter((record) => !known.has(record.hash));
    expect(records.length - extra.length).toBe(contents.length);
    for (const record of extra) expect(records.some((other) => other.baseHash === record.hash)).toBe(true);
    await expectAll(after.blobs, contents);
    const report = await after.blobs.compress();
    expect(report.pendingBlobs).toBe(0);
    await after.storage.compact({ minLiveRatio: 1 });
    const stats = await after.storage.stats();
    expect(stats.footprintBytes).toBe(stats.storedBytes);
    expect(stats.storedBytes).toBeLessThan(stats.rawBytes / 4);
    expect(readdirSync(join(dir, 'packs')).filter(isStaging)).toEqual([]);
    await expectAll(after.blobs, contents);
  });

  it('compresses while another process writes raw-first blobs and reads the ones being moved', async () => {
    const dir = makeTempDir();
    const { blobs, storage } = openStore(dir);
    const base = texts('base', 1500);
    await blobs.putMany(base, { compression: 'deferred' });
    storage.close(); // seals the staging pack, so the pass below may move it
    const hashesFile = join(dir, 'hashes.txt');
    writeFileSync(hashesFile, base.map(hashContent).join('\n'));

    const child = start(['write-read', join(dir, 'store.db'), join(dir, 'packs'), 'other', '300', hashesFile]);
    const exit = exited(child);
    await waitForOutput(child, 'wrote ');
    const collector = openStore(dir);
    const first = await collector.blobs.compress();
    const result = await exit;
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(first.blobsMoved).toBeGreaterThanOrEqual(base.length);

    // The writer sealed its staging packs on close: one more pass moves them too.
    const last = await collector.blobs.compress();
    expect(last.pendingBlobs).toBe(0);
    expect(readdirSync(join(dir, 'packs')).filter(isStaging)).toEqual([]);
    await expectAll(collector.blobs, [...base, ...texts('other', 300)]);
  });
});
