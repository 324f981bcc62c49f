/**
 * Blob storage budgets: (a) 100 one-line edits of a 100 KB file stored with deltas, (b) bulk write
 * of a realistic file mix through `BlobStore.putMany` into pack files vs one file per blob and vs
 * one SQLite row per blob, all through the same hashing/compression pipeline in the same run (eager
 * deflate), plus the raw-first path (stored raw, then the compress pass) against eager packs,
 * (c) verified read latency of 5 random blobs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BlobStore } from '../../src/blobs/index.js';
import { hashContent } from '../../src/model/index.js';
import type { BlobRecord } from '../../src/model/index.js';
import { BLOB_SCHEMA_SQL, PackBlobStorage } from '../../src/store/sqlite/blobs/index.js';
import type { BlobStorage, BlobStorageStats, StoredBlobInput } from '../../src/store/store.js';
import { timeMedian, timeOnce, type BenchContext, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'blobs';

function openPackStore(dir: string): { storage: PackBlobStorage; blobs: BlobStore; db: Database.Database } {
  const db = new Database(join(dir, 'store.db'));
  db.pragma('journal_mode = WAL');
  db.exec(BLOB_SCHEMA_SQL);
  const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
  return { storage, db, blobs: new BlobStore({ blobs: storage, blobRoots: async () => new Set() }) };
}

/** Deterministic pseudo-random numbers, so every run stores the same data. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  'const',
  'await',
  'return',
  'session',
  'message',
  'checkpoint',
  'if',
  'for',
  'blob',
  'hash',
  'store',
  'export',
  'function',
  'import',
  'value',
  'error',
  'result',
  'options',
  'path',
  'null',
];

function sourceText(random: () => number, bytes: number): Buffer {
  const lines: string[] = [];
  let length = 0;
  while (length < bytes) {
    const indent = '  '.repeat(Math.floor(random() * 4));
    const words = Array.from(
      { length: 3 + Math.floor(random() * 8) },
      () => WORDS[Math.floor(random() * WORDS.length)]! + (random() < 0.3 ? Math.floor(random() * 1000) : ''),
    );
    const line = `${indent}${words.join(' ')};`;
    lines.push(line);
    length += line.length + 1;
  }
  return Buffer.from(lines.join('\n')).subarray(0, bytes);
}

/** 1–20 KB files: 90% source-like text, 10% random binary (already-compressed assets). */
function fileMix(count: number): Buffer[] {
  const random = generator(42);
  return Array.from({ length: count }, (_, index) => {
    const size = 1024 + Math.floor(random() * 19 * 1024);
    return index % 10 === 9 ? randomBytes(size) : sourceText(random, size);
  });
}

/** Baseline: one file per blob, written and fsynced one by one, like a loose-object store. */
class LooseFileBlobStorage implements BlobStorage {
  private readonly records = new Map<string, BlobRecord>();
  constructor(private readonly dir: string) {}
  async putMany(items: StoredBlobInput[]): Promise<void> {
    for (const item of items) {
      if (this.records.has(item.record.hash)) continue;
      const fanout = join(this.dir, item.record.hash.slice(0, 2));
      mkdirSync(fanout, { recursive: true });
      const fd = openSync(join(fanout, item.record.hash), 'w');
      writeSync(fd, item.bytes);
      fsyncSync(fd);
      closeSync(fd);
      this.records.set(item.record.hash, { ...item.record, createdAt: Date.now() });
    }
  }
  async getRecord(hash: string) {
    return this.records.get(hash) ?? null;
  }
  async getRecords(hashes: readonly string[]) {
    return new Map(hashes.flatMap((hash) => (this.records.has(hash) ? [[hash, this.records.get(hash)!] as const] : [])));
  }
  async readStored(hash: string) {
    return readFileSync(join(this.dir, hash.slice(0, 2), hash));
  }
  async has(hashes: readonly string[]) {
    return new Set(hashes.filter((hash) => this.records.has(hash)));
  }
  async listRecords() {
    return [...this.records.values()];
  }
  async deleteMany(hashes: readonly string[]) {
    let freedBytes = 0;
    for (const hash of hashes) {
      const record = this.records.get(hash);
      if (!record) continue;
      rmSync(join(this.dir, hash.slice(0, 2), hash));
      this.records.delete(hash);
      freedBytes += record.storedSize;
    }
    return { freedBytes };
  }
  async stats(): Promise<BlobStorageStats> {
    const records = [...this.records.values()];
    const storedBytes = records.reduce((sum, record) => sum + record.storedSize, 0);
    return { blobCount: records.length, rawBytes: records.reduce((sum, record) => sum + record.size, 0), storedBytes, footprintBytes: storedBytes };
  }
}

interface TableRow {
  hash: string;
  size: number;
  stored_size: number;
  encoding: BlobRecord['encoding'];
  base_hash: string | null;
  chain_depth: number;
  created_at: number;
}

/** Baseline: blob bytes as rows of one SQLite table, one INSERT per blob in one transaction. */
class TableBlobStorage implements BlobStorage {
  private readonly db: Database.Database;
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(
      `CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER, stored_size INTEGER, encoding TEXT, base_hash TEXT, chain_depth INTEGER, created_at INTEGER, bytes BLOB) WITHOUT ROWID`,
    );
  }
  async putMany(items: StoredBlobInput[]): Promise<void> {
    const insert = this.db.prepare('INSERT OR IGNORE INTO blobs VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.db
      .transaction(() => {
        for (const { record, bytes } of items)
          insert.run(record.hash, record.size, record.storedSize, record.encoding, record.baseHash, record.chainDepth, Date.now(), bytes);
      })
      .immediate();
  }
  private row(hash: string) {
    return this.db.prepare('SELECT * FROM blobs WHERE hash = ?').get(hash) as TableRow | undefined;
  }
  private toRecord(row: TableRow): BlobRecord {
    return {
      hash: row.hash,
      size: row.size,
      storedSize: row.stored_size,
      encoding: row.encoding,
      baseHash: row.base_hash,
      chainDepth: row.chain_depth,
      createdAt: row.created_at,
    };
  }
  async getRecord(hash: string) {
    const row = this.row(hash);
    return row ? this.toRecord(row) : null;
  }
  async getRecords(hashes: readonly string[]) {
    return new Map(
      hashes.flatMap((hash) => {
        const row = this.row(hash);
        return row ? [[hash, this.toRecord(row)] as const] : [];
      }),
    );
  }
  async readStored(hash: string) {
    return this.db.prepare('SELECT bytes FROM blobs WHERE hash = ?').pluck().get(hash) as Buffer;
  }
  async has(hashes: readonly string[]) {
    return new Set(this.db.prepare('SELECT hash FROM blobs WHERE hash IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(hashes)) as string[]);
  }
  async listRecords() {
    return (this.db.prepare('SELECT * FROM blobs').all() as Array<TableRow>).map((row) => this.toRecord(row));
  }
  async deleteMany(hashes: readonly string[]) {
    const freed = this.db
      .prepare('SELECT COALESCE(SUM(stored_size), 0) FROM blobs WHERE hash IN (SELECT value FROM json_each(?))')
      .pluck()
      .get(JSON.stringify(hashes)) as number;
    this.db.prepare('DELETE FROM blobs WHERE hash IN (SELECT value FROM json_each(?))').run(JSON.stringify(hashes));
    return { freedBytes: freed };
  }
  async stats(): Promise<BlobStorageStats> {
    const row = this.db.prepare('SELECT COUNT(*) AS count, COALESCE(SUM(size), 0) AS raw, COALESCE(SUM(stored_size), 0) AS stored FROM blobs').get() as {
      count: number;
      raw: number;
      stored: number;
    };
    return { blobCount: row.count, rawBytes: row.raw, storedBytes: row.stored, footprintBytes: row.stored };
  }
  close() {
    this.db.close();
  }
}

async function hundredEdits(context: BenchContext): Promise<BenchResult[]> {
  const { blobs, storage } = openPackStore(context.tempDir());
  const random = generator(7);
  const lines = sourceText(random, 100 * 1024)
    .toString()
    .split('\n');
  let previous = await blobs.put(Buffer.from(lines.join('\n')));
  let plain = Buffer.byteLength(lines.join('\n'));
  for (let edit = 1; edit <= 100; edit++) {
    lines[Math.floor(random() * lines.length)] = `  // edit ${edit}: ${WORDS[edit % WORDS.length]} changed`;
    const content = Buffer.from(lines.join('\n'));
    plain += content.length;
    previous = await blobs.put(content, { baseHash: previous });
  }
  const stats = await storage.stats();
  return [
    {
      suite: SUITE,
      name: '100 one-line edits of a 100 KB file: stored bytes',
      value: stats.footprintBytes,
      unit: 'bytes',
      baseline: { name: 'plain copies', value: plain },
      ratio: stats.footprintBytes / plain,
      goal: '< 1 MB',
      met: stats.footprintBytes < 1024 * 1024,
      note: `${stats.blobCount} versions, pack footprint incl. every byte on disk`,
    },
  ];
}

async function bulkWrite(context: BenchContext): Promise<{ results: BenchResult[]; readStore: BlobStore; hashes: string[] }> {
  const count = context.quick ? 1000 : 10_000;
  const files = fileMix(count);
  const totalBytes = files.reduce((sum, file) => sum + file.length, 0);
  const runs = 3;
  const median = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
  const packSamples: number[] = [];
  const looseSamples: number[] = [];
  const tableSamples: number[] = [];
  const deferredSamples: number[] = [];
  const compressSamples: number[] = [];
  let deferredFootprint = { before: 0, after: 0 };
  let readStore: BlobStore | null = null;
  let footprint = 0;
  // Rotate the order each run so no layout always pays for the previous one's dirty pages or garbage.
  const writers: Array<() => Promise<void>> = [
    async () => {
      // Eager: the same hash + deflate pipeline as the two baselines (raw first is measured below).
      const pack = openPackStore(context.tempDir());
      packSamples.push(await timeOnce(() => pack.blobs.putMany(files, { compression: 'eager' })));
      footprint = (await pack.storage.stats()).footprintBytes;
      readStore = pack.blobs;
    },
    async () => {
      const pack = openPackStore(context.tempDir());
      deferredSamples.push(await timeOnce(() => pack.blobs.putMany(files, { compression: 'deferred' })));
      const before = (await pack.storage.stats()).footprintBytes;
      const start = process.hrtime.bigint();
      await pack.blobs.compress();
      compressSamples.push(Number(process.hrtime.bigint() - start) / 1e6);
      deferredFootprint = { before, after: (await pack.storage.stats()).footprintBytes };
    },
    async () => {
      const loose = new BlobStore({ blobs: new LooseFileBlobStorage(context.tempDir()), blobRoots: async () => new Set() });
      looseSamples.push(await timeOnce(() => loose.putMany(files)));
    },
    async () => {
      const tableStorage = new TableBlobStorage(join(context.tempDir(), 'table.db'));
      const table = new BlobStore({ blobs: tableStorage, blobRoots: async () => new Set() });
      tableSamples.push(await timeOnce(() => table.putMany(files)));
      tableStorage.close();
    },
  ];
  // Warm-up (unmeasured): JIT, zlib and page cache, so the first measured layout is not penalized.
  await new BlobStore({ blobs: new LooseFileBlobStorage(context.tempDir()), blobRoots: async () => new Set() }).putMany(files.slice(0, 500));
  for (let run = 0; run < runs; run++) {
    for (let step = 0; step < writers.length; step++) await writers[(run + step) % writers.length]!();
  }
  // The storage layers alone, on identical pre-encoded (raw) inputs: what the choice of layout costs.
  const raw: StoredBlobInput[] = files.map((bytes) => ({
    record: { hash: hashContent(bytes), size: bytes.length, storedSize: bytes.length, encoding: 'raw', baseHash: null, chainDepth: 0 },
    bytes,
  }));
  const storagePack: number[] = [];
  const storageLoose: number[] = [];
  const storageTable: number[] = [];
  for (let run = 0; run < runs; run++) {
    if (run % 3 === 1) {
      const table = new TableBlobStorage(join(context.tempDir(), 'table.db'));
      storageTable.push(await timeOnce(() => table.putMany(raw)));
      table.close();
    }
    const pack = openPackStore(context.tempDir());
    storagePack.push(await timeOnce(() => pack.storage.putMany(raw)));
    const loose = new LooseFileBlobStorage(context.tempDir());
    storageLoose.push(await timeOnce(() => loose.putMany(raw)));
    if (run % 3 !== 1) {
      const table = new TableBlobStorage(join(context.tempDir(), 'table.db'));
      storageTable.push(await timeOnce(() => table.putMany(raw)));
      table.close();
    }
  }
  const rawPackMs = median(storagePack);
  const rawLooseMs = median(storageLoose);
  const rawTableMs = median(storageTable);
  const packMs = median(packSamples);
  const looseMs = median(looseSamples);
  const tableMs = median(tableSamples);
  const deferredMs = median(deferredSamples);
  const compressMs = median(compressSamples);
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const note = `${count} files, ${(totalBytes / 1024 / 1024).toFixed(1)} MB raw, ${(footprint / 1024 / 1024).toFixed(1)} MB in packs; same hash+deflate pipeline for all three; median of ${runs}`;
  return {
    readStore: readStore!,
    hashes: files.map(hashContent),
    results: [
      {
        suite: SUITE,
        name: `bulk write ${count} files: packs`,
        value: packMs,
        unit: 'ms',
        baseline: { name: 'file per blob + fsync', value: looseMs },
        ratio: looseMs / packMs,
        goal: 'faster than file per blob',
        met: packMs < looseMs,
        note,
      },
      {
        suite: SUITE,
        name: `bulk write ${count} files: packs vs table`,
        value: packMs,
        unit: 'ms',
        baseline: { name: 'SQLite row per blob, 1 tx', value: tableMs },
        ratio: tableMs / packMs,
        goal: 'faster than table rows',
        met: packMs < tableMs,
      },
      {
        suite: SUITE,
        name: `bulk write ${count} files: packs, raw first`,
        value: deferredMs,
        unit: 'ms',
        baseline: { name: 'packs, deflate at once', value: packMs },
        ratio: packMs / deferredMs,
        goal: 'faster than deflating at once',
        met: deferredMs < packMs,
        note: `putMany(files, { compression: 'deferred' }): hash + store raw in a staging pack; ${mib(deferredFootprint.before)} MB on disk until compressed; median of ${runs}`,
      },
      {
        suite: SUITE,
        name: `compress pass after raw-first bulk write ${count} files`,
        value: compressMs,
        unit: 'ms',
        baseline: { name: 'packs, deflate at once', value: packMs },
        ratio: packMs / (deferredMs + compressMs),
        note: `BlobStore.compress: footprint ${mib(deferredFootprint.before)} → ${mib(deferredFootprint.after)} MB (eager: ${mib(footprint)} MB); ratio = eager / (raw first + compress)`,
      },
      {
        suite: SUITE,
        name: `storage only, ${count} raw blobs: packs`,
        value: rawPackMs,
        unit: 'ms',
        baseline: { name: 'file per blob + fsync', value: rawLooseMs },
        ratio: rawLooseMs / rawPackMs,
        note: 'BlobStorage.putMany on identical pre-encoded inputs, no hashing or deflate timed',
      },
      {
        suite: SUITE,
        name: `storage only, ${count} raw blobs: packs vs table`,
        value: rawPackMs,
        unit: 'ms',
        baseline: { name: 'SQLite row per blob, 1 tx', value: rawTableMs },
        ratio: rawTableMs / rawPackMs,
      },
    ],
  };
}

async function readLatency(blobs: BlobStore, hashes: string[]): Promise<BenchResult> {
  const random = generator(99);
  const ms = await timeMedian(
    async () => {
      for (let index = 0; index < 5; index++) await blobs.get(hashes[Math.floor(random() * hashes.length)]!);
    },
    201,
    20,
  );
  return {
    suite: SUITE,
    name: 'read 5 random blobs (verified)',
    value: ms,
    unit: 'ms',
    goal: '< 1 ms total',
    met: ms < 1,
    note: 'decode + sha256 check on every read, median of 201',
  };
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context) {
    const results = await hundredEdits(context);
    const bulk = await bulkWrite(context);
    results.push(...bulk.results, await readLatency(bulk.readStore, bulk.hashes));
    return results;
  },
};

export default suite;
