import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { hashContent } from '../../src/model/index.js';
import { blobContent, makeTempDir, openBlobDatabase, removeTempDirs } from '../../src/store/sqlite/blobs/fixtures/blob-test-database.js';
import { PackBlobStorage } from '../../src/store/sqlite/blobs/pack-blob-storage.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const childScript = join(here, '..', 'fixtures', 'blob-writer-child.ts');

function startWriter(dbFile: string, packDir: string, prefix: string, count: number, batchSize: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', childScript, dbFile, packDir, prefix, String(count), String(batchSize)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolvePromise) => child.on('exit', (code, signal) => resolvePromise({ code, signal, stderr })));
}

function waitForLine(child: ChildProcess, line: string): Promise<void> {
  let output = '';
  return new Promise((resolvePromise, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.split('\n').includes(line)) resolvePromise();
    });
    child.on('exit', () => reject(new Error(`writer exited before printing "${line}"`)));
  });
}

function openStore(dir: string) {
  const db = openBlobDatabase(join(dir, 'store.db'));
  const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
  return { db, storage, blobs: new BlobStore({ blobs: storage, blobRoots: async () => new Set<string>() }) };
}

afterAll(removeTempDirs);

describe('PackBlobStorage with several processes', () => {
  it('two processes write the same store at once, overlapping hashes, without losing a blob', async () => {
    const dir = makeTempDir();
    openBlobDatabase(join(dir, 'store.db')).close();
    const count = 600;
    const writers = ['alpha', 'beta'].map((prefix) => startWriter(join(dir, 'store.db'), join(dir, 'packs'), prefix, count, 10));
    const results = await Promise.all(writers.map(exited));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });

    const { db, storage, blobs } = openStore(dir);
    const expected = new Map<string, Buffer>();
    for (const prefix of ['alpha', 'beta']) {
      for (let index = 0; index < count; index++) {
        const content = blobContent(index % 2 === 0 ? 'shared' : prefix, index);
        expected.set(hashContent(content), content);
      }
    }
    expect((await storage.stats()).blobCount).toBe(expected.size);
    for (const [hash, content] of expected) expect((await blobs.get(hash)).equals(content)).toBe(true);
    const pids = db.prepare('SELECT DISTINCT pid FROM blob_packs').pluck().all();
    expect(pids).toHaveLength(2);
  });

  it('a writer killed mid-batch leaves only intact indexed blobs, and compaction sweeps its orphan bytes', async () => {
    const dir = makeTempDir();
    openBlobDatabase(join(dir, 'store.db')).close();
    const child = startWriter(join(dir, 'store.db'), join(dir, 'packs'), 'random', 10_000, 40);
    const exit = exited(child);
    await waitForLine(child, 'committed 80');
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 15));
    child.kill('SIGKILL');
    expect((await exit).signal).toBe('SIGKILL');

    const { db, storage, blobs } = openStore(dir);
    const records = await storage.listRecords();
    expect(records.length).toBeGreaterThanOrEqual(80);
    for (const record of records) expect(hashContent(await blobs.get(record.hash))).toBe(record.hash);

    // Whatever the kill interrupted, add bytes that were synced but never indexed, as a crash leaves.
    const [childPack] = db.prepare('SELECT name FROM blob_packs').pluck().all() as string[];
    appendFileSync(join(dir, 'packs', childPack!), Buffer.alloc(300_000, 1));
    const before = await storage.stats();
    expect(before.footprintBytes).toBeGreaterThan(before.storedBytes);

    await storage.compact({ minLiveRatio: 1 });
    const after = await storage.stats();
    expect(after.footprintBytes).toBe(after.storedBytes);
    expect(after.blobCount).toBe(records.length);
    expect(readdirSync(join(dir, 'packs'))).not.toContain(childPack);
    for (const record of records) expect(hashContent(await blobs.get(record.hash))).toBe(record.hash);
  });
});
