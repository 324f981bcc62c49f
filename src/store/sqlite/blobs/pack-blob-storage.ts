import { statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { BlobCorruptError, InvalidArgumentError, NotFoundError, StoreError, type BlobRecord } from '../../../model/index.js';
import type { BlobStorage, BlobStorageStats, PendingBlobWrite, RecompressOptions, RecompressReport, StagingBlobStorage, StoredBlobInput } from '../../store.js';
import { deleteUnusedBases, prepareIndexInsert, toRecord, type IndexInsert, type IndexRow } from './blob-index-rows.js';
import { INDEX_ROW_SELECT } from './blob-schema.js';
import { PackCompactor, type CompactOptions, type CompactResult } from './pack-compactor.js';
import { PackReader } from './pack-reader.js';
import { PackRecompressor } from './pack-recompressor.js';
import { PackStagedBatch } from './pack-staged-batch.js';
import { PackWriter } from './pack-writer.js';

/** Options of `PackBlobStorage.putMany` beyond the `BlobStorage` contract. */
export interface PackPutOptions {
  /**
   * Write the (whole, raw) blobs into this process's staging pack: the raw-first fast path. The
   * recompress pass encodes them for good later. Default false.
   */
  staged?: boolean;
}

export interface PackBlobStorageOptions {
  /** Refuse every write with `STORE_READ_ONLY`. */
  readOnly: boolean;
  /** Start a new pack once the current one would pass this size (default 64 MiB). */
  maxPackBytes?: number;
  /** Compaction threshold used by `deleteMany` (default 0.5, see `CompactOptions`). */
  minLiveRatio?: number;
}

/** A concurrent delete can remove a blob we skipped as present; retry those this many times. */
const MAX_PUT_ROUNDS = 3;

/**
 * The SQLite backend's `BlobStorage`: blob bytes in append-only pack files under `packDir`,
 * indexed in the `blob_index` table (see `BLOB_SCHEMA_SQL`).
 *
 * Writes append a whole batch to this process's own pack, fsync once, then insert the index rows
 * in one immediate transaction, so a row never refers to bytes that are not durable and several
 * processes can write the same store at once. Deletes drop rows, then compact packs whose live
 * share fell low (and sweep orphan bytes left by crashed writers).
 *
 * Raw first, compress later: `openStagedBatch` (and `putMany(items, { staged: true })`) stream
 * whole blobs raw into a staging pack (`*.raw.pack`) as fast as the disk takes them; `recompress`
 * later moves them, encoded by the caller's codec, into a packed pack and removes the staging file.
 *
 * @example
 * const db = new Database(file); db.pragma('journal_mode = WAL'); db.exec(BLOB_SCHEMA_SQL);
 * const storage = new PackBlobStorage(db, join(dir, 'packs'), { readOnly: false });
 * await storage.putMany([{ record: { hash, size, storedSize, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes }]);
 */
export class PackBlobStorage implements BlobStorage, StagingBlobStorage {
  private readonly reader: PackReader;
  private readonly writer: PackWriter;
  private readonly stagingWriter: PackWriter;
  private readonly compactor: PackCompactor;
  private readonly recompressor: PackRecompressor;
  private readonly readOnly: boolean;
  private readonly minLiveRatio: number;
  private readonly selectOne: Database.Statement;
  private readonly selectMany: Database.Statement;
  private insertRow: IndexInsert | null = null;
  private selectPresentStatement: Database.Statement | null = null;
  private selectPresentOneStatement: Database.Statement | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly packDir: string,
    options: PackBlobStorageOptions,
  ) {
    this.readOnly = options.readOnly;
    this.minLiveRatio = options.minLiveRatio ?? 0.5;
    this.reader = new PackReader(packDir);
    const maxPackBytes = options.maxPackBytes ?? 64 * 1024 * 1024;
    this.writer = new PackWriter(db, packDir, maxPackBytes);
    this.stagingWriter = new PackWriter(db, packDir, maxPackBytes, 'staging');
    this.compactor = new PackCompactor(db, packDir, this.reader, this.writer, this.stagingWriter);
    this.recompressor = new PackRecompressor(db, this.reader, this.writer, this.stagingWriter, this.compactor);
    this.selectOne = db.prepare(`${INDEX_ROW_SELECT} WHERE i.hash = unhex(?)`);
    this.selectMany = db.prepare(`${INDEX_ROW_SELECT} WHERE i.hash IN (SELECT unhex(value) FROM json_each(?))`);
  }

  async putMany(items: StoredBlobInput[], options: PackPutOptions = {}): Promise<void> {
    this.assertWritable('store blobs');
    const unique = new Map<string, StoredBlobInput>();
    for (const item of items) {
      validate(item);
      if (options.staged && (item.record.encoding !== 'raw' || item.record.size !== item.bytes.length)) {
        throw new InvalidArgumentError({
          parameter: 'record.encoding',
          value: item.record.encoding,
          reason: `only whole raw blobs can be staged (blob ${item.record.hash})`,
        });
      }
      if (!unique.has(item.record.hash)) unique.set(item.record.hash, item);
    }
    if (options.staged) {
      const present = this.presentHashes([...unique.keys()]);
      const batch = this.openStagedBatch();
      for (const item of unique.values()) if (!present.has(item.record.hash)) batch.add(item.record.hash, item.bytes);
      await batch.commit();
      return;
    }
    let pending = [...unique.values()];
    for (let round = 0; round < MAX_PUT_ROUNDS && pending.length > 0; round++) {
      const present = this.presentHashes(pending.map((item) => item.record.hash));
      const toWrite = pending.filter((item) => !present.has(item.record.hash));
      if (toWrite.length === 0) return;
      const { pack, offsets } = this.writer.append(toWrite.map((item) => item.bytes));
      const now = Date.now();
      pending = this.db
        .transaction(() => {
          toWrite.forEach((item, index) => {
            const record = item.record;
            this.insert({ ...recordFields(record), pack, offset: offsets[index]!, createdAtMs: now });
          });
          // Skipped because present, but deleted since by a concurrent GC: write those again.
          const nowPresent = this.presentHashes(pending.map((item) => item.record.hash));
          return pending.filter((item) => !nowPresent.has(item.record.hash));
        })
        .immediate();
    }
    if (pending.length > 0) {
      throw new StoreError({
        code: 'STORE_BUSY',
        message: `Blobs kept disappearing while being stored (a garbage collection is running concurrently); retry when it has finished.`,
        details: { hashes: pending.map((item) => item.record.hash) },
      });
    }
  }

  /**
   * `putMany` in two phases: the bytes are appended to this process's pack now and their fsync
   * started in the thread pool; `commit` waits for it, then inserts the rows in one immediate
   * transaction, so a row never refers to bytes that are not durable. The pack stays `open` (never
   * compacted) until the write is committed or aborted.
   */
  beginPutMany(items: StoredBlobInput[]): PendingBlobWrite {
    this.assertWritable('store blobs');
    const unique = new Map<string, StoredBlobInput>();
    for (const item of items) {
      validate(item);
      if (!unique.has(item.record.hash)) unique.set(item.record.hash, item);
    }
    const present = this.presentHashes([...unique.keys()]);
    const toWrite = [...unique.values()].filter((item) => !present.has(item.record.hash));
    const skipped = [...unique.values()].filter((item) => present.has(item.record.hash));
    let state: 'pending' | 'done' = 'pending';
    if (toWrite.length === 0) {
      return {
        count: 0,
        commit: async () => {
          if (state === 'done') return;
          state = 'done';
          await this.rewriteVanished(skipped);
        },
        abort: () => {
          state = 'done';
        },
      };
    }
    const pack = this.writer.openStream();
    let offsets: number[];
    let synced: Promise<void>;
    try {
      offsets = toWrite.map((item) => this.writer.stream(pack, item.bytes));
      synced = this.writer.syncStream(pack);
    } catch (error) {
      this.writer.closeStream(pack);
      throw error;
    }
    // Observed here so a write abandoned before `commit` never reports an unhandled rejection.
    synced.catch(() => undefined);
    return {
      count: toWrite.length,
      commit: async () => {
        if (state === 'done') throw new StoreError({ code: 'STORE_CLOSED', message: 'This blob write was already committed or aborted.', details: {} });
        state = 'done';
        try {
          await synced;
          const now = Date.now();
          this.db
            .transaction(() => {
              toWrite.forEach((item, index) => {
                const record = item.record;
                this.insert({ ...recordFields(record), pack: pack.name, offset: offsets[index]!, createdAtMs: now });
              });
            })
            .immediate();
        } finally {
          this.writer.closeStream(pack);
        }
        await this.rewriteVanished(skipped);
      },
      abort: () => {
        if (state === 'done') return;
        state = 'done';
        // Keep the pack open for the fsync still running on its descriptor, then let it go.
        void synced.finally(() => this.writer.closeStream(pack)).catch(() => undefined);
      },
    };
  }

  /** Blobs skipped as present that a concurrent GC deleted since: store them again. */
  private async rewriteVanished(skipped: StoredBlobInput[]): Promise<void> {
    if (skipped.length === 0) return;
    const still = this.presentHashes(skipped.map((item) => item.record.hash));
    const vanished = skipped.filter((item) => !still.has(item.record.hash));
    if (vanished.length > 0) await this.putMany(vanished);
  }

  /**
   * A batch that streams whole blobs raw into this process's staging pack as they are added, then
   * makes them durable and indexes them in `commit` (see `PackStagedBatch`).
   */
  openStagedBatch(): PackStagedBatch {
    this.assertWritable('store blobs');
    return new PackStagedBatch(this.db, this.stagingWriter, this.insert);
  }

  /**
   * Encode staged blobs for good and remove the staging packs they leave empty, within the
   * optional budget (see `PackRecompressor`). Safe while other processes read and write.
   */
  async recompress(options: RecompressOptions): Promise<RecompressReport> {
    this.assertWritable('compress blobs');
    return this.recompressor.recompress(options);
  }

  /** Staged blobs waiting for `recompress`, and their bytes. */
  async stagedBacklog(): Promise<{ blobs: number; bytes: number }> {
    return this.recompressor.pending();
  }

  async getRecord(hash: string): Promise<BlobRecord | null> {
    const row = this.selectOne.get(hash) as IndexRow | undefined;
    return row ? toRecord(row) : null;
  }

  async getRecords(hashes: readonly string[]): Promise<Map<string, BlobRecord>> {
    const rows = this.selectMany.all(JSON.stringify(hashes)) as IndexRow[];
    return new Map(rows.map((row) => [row.hash.toString('hex'), toRecord(row)]));
  }

  async readStored(hash: string): Promise<Buffer> {
    return this.readStoredSync(hash);
  }

  async has(hashes: readonly string[]): Promise<Set<string>> {
    return this.presentHashes(hashes);
  }

  async listRecords(): Promise<BlobRecord[]> {
    return (this.db.prepare(`${INDEX_ROW_SELECT} ORDER BY i.created_sec, i.hash`).all() as IndexRow[]).map(toRecord);
  }

  async deleteMany(hashes: readonly string[]): Promise<{ freedBytes: number }> {
    this.assertWritable('delete blobs');
    const freedBytes = this.db
      .transaction(() => {
        const json = JSON.stringify(hashes);
        const freed = this.db
          .prepare('SELECT COALESCE(SUM(stored_size), 0) AS bytes FROM blob_index WHERE hash IN (SELECT unhex(value) FROM json_each(?))')
          .get(json) as { bytes: number };
        this.db.prepare('DELETE FROM blob_index WHERE hash IN (SELECT unhex(value) FROM json_each(?))').run(json);
        deleteUnusedBases(this.db);
        return freed.bytes;
      })
      .immediate();
    this.compactor.compact({ minLiveRatio: this.minLiveRatio });
    return { freedBytes };
  }

  /**
   * The deleting half of a safe sweep, run inside the caller's write transaction (which also read
   * `roots` in it): deletes the candidates that are neither in `roots` nor a delta base, directly
   * or down a chain, of a blob that stays. Packs are left for `compact` after the transaction.
   */
  deleteUnreferencedInTransaction(candidates: readonly string[], roots: ReadonlySet<string>): { deleted: string[]; spared: string[]; freedBytes: number } {
    this.assertWritable('delete blobs');
    const present = this.presentHashes([...new Set(candidates)]);
    const doomed = new Set([...present].filter((hash) => !roots.has(hash)));
    const keptBases = this.db
      .prepare(
        `SELECT DISTINCT lower(hex(b.hash)) FROM blob_index i JOIN blob_bases b ON b.id = i.base
       WHERE b.hash IN (SELECT unhex(value) FROM json_each(@doomed)) AND i.hash NOT IN (SELECT unhex(value) FROM json_each(@doomed))`,
      )
      .pluck();
    for (;;) {
      const kept = keptBases.all({ doomed: JSON.stringify([...doomed]) }) as string[];
      if (kept.length === 0) break;
      for (const hash of kept) doomed.delete(hash);
    }
    const json = JSON.stringify([...doomed]);
    const freed = this.db
      .prepare('SELECT COALESCE(SUM(stored_size), 0) AS bytes FROM blob_index WHERE hash IN (SELECT unhex(value) FROM json_each(?))')
      .get(json) as {
      bytes: number;
    };
    this.db.prepare('DELETE FROM blob_index WHERE hash IN (SELECT unhex(value) FROM json_each(?))').run(json);
    deleteUnusedBases(this.db);
    const spared = [...new Set(candidates)].filter((hash) => present.has(hash) && !doomed.has(hash));
    return { deleted: [...doomed], spared, freedBytes: freed.bytes };
  }

  /**
   * Rewrite packs whose live share is below `minLiveRatio`, remove packs without live blobs and
   * stray pack files, sweeping orphan bytes of crashed writers. `deleteMany` runs this itself.
   */
  async compact(options: CompactOptions = {}): Promise<CompactResult> {
    this.assertWritable('compact blob packs');
    return this.compactor.compact({ minLiveRatio: options.minLiveRatio ?? this.minLiveRatio });
  }

  async stats(): Promise<BlobStorageStats> {
    const totals = this.db
      .prepare('SELECT COUNT(*) AS count, COALESCE(SUM(size), 0) AS raw, COALESCE(SUM(stored_size), 0) AS stored FROM blob_index')
      .get() as { count: number; raw: number; stored: number };
    const packs = this.db.prepare('SELECT name FROM blob_packs').pluck().all() as string[];
    let footprintBytes = 0;
    for (const pack of packs) {
      try {
        footprintBytes += statSync(join(this.packDir, pack)).size;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return { blobCount: totals.count, rawBytes: totals.raw, storedBytes: totals.stored, footprintBytes };
  }

  /** Seal this process's pack and close cached descriptors. The database stays open (the store owns it). */
  close(): void {
    if (!this.readOnly) {
      this.writer.seal();
      this.stagingWriter.seal();
    }
    this.reader.close();
  }

  private readStoredSync(hash: string): Buffer {
    let row = this.selectOne.get(hash) as IndexRow | undefined;
    if (!row) throw new NotFoundError({ entity: 'blob', id: hash });
    let bytes: Buffer;
    try {
      bytes = this.reader.read(row.pack, row.pack_offset, row.stored_size);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(hash, row.pack, error);
      // The pack vanished: another process compacted it after we read the row. Look again once.
      const previousPack = row.pack;
      row = this.selectOne.get(hash) as IndexRow | undefined;
      if (!row) throw new NotFoundError({ entity: 'blob', id: hash });
      if (row.pack === previousPack) throw ioError(hash, row.pack, error);
      try {
        bytes = this.reader.read(row.pack, row.pack_offset, row.stored_size);
      } catch (retryError) {
        throw ioError(hash, row.pack, retryError);
      }
    }
    if (bytes.length !== row.stored_size) {
      throw new BlobCorruptError({ hash, reason: `pack ${row.pack} ends after ${bytes.length} of ${row.stored_size} stored bytes` });
    }
    return bytes;
  }

  private get insert(): IndexInsert {
    this.insertRow ??= prepareIndexInsert(this.db);
    return this.insertRow;
  }

  private presentHashes(hashes: readonly string[]): Set<string> {
    if (hashes.length === 0) return new Set();
    if (hashes.length === 1) return this.selectPresentOne.get(hashes[0]) === undefined ? new Set() : new Set(hashes);
    return new Set((this.selectPresent.all(JSON.stringify(hashes)) as Buffer[]).map((hash) => hash.toString('hex')));
  }

  private get selectPresent(): Database.Statement {
    this.selectPresentStatement ??= this.db.prepare('SELECT hash FROM blob_index WHERE hash IN (SELECT unhex(value) FROM json_each(?))').pluck();
    return this.selectPresentStatement;
  }

  private get selectPresentOne(): Database.Statement {
    this.selectPresentOneStatement ??= this.db.prepare('SELECT 1 FROM blob_index WHERE hash = unhex(?)').pluck();
    return this.selectPresentOneStatement;
  }

  private assertWritable(action: string): void {
    if (this.readOnly) {
      throw new StoreError({ code: 'STORE_READ_ONLY', message: `Cannot ${action}: the store was opened read-only.`, details: { packDir: this.packDir } });
    }
  }
}

const HASH_PATTERN = /^[0-9a-f]{64}$/;

function validate(item: StoredBlobInput): void {
  const record = item.record;
  for (const [parameter, value] of [
    ['record.hash', record.hash],
    ['record.baseHash', record.baseHash],
  ] as const) {
    if (value !== null && !HASH_PATTERN.test(value)) throw new InvalidArgumentError({ parameter, value, reason: 'a blob hash is a sha256 in lowercase hex' });
  }
  if (record.storedSize !== item.bytes.length) {
    throw new InvalidArgumentError({
      parameter: 'record.storedSize',
      value: record.storedSize,
      reason: `it must equal the length of the bytes (${item.bytes.length}) of blob ${record.hash}`,
    });
  }
  if ((record.encoding === 'delta') !== (record.baseHash !== null)) {
    throw new InvalidArgumentError({
      parameter: 'record.baseHash',
      value: record.baseHash,
      reason: `a base hash is required for delta blobs and only for them (blob ${record.hash} is ${record.encoding})`,
    });
  }
}

function recordFields(record: StoredBlobInput['record']) {
  const { hash, storedSize, size, encoding, baseHash, chainDepth } = record;
  return { hash, storedSize, size, encoding, baseHash, chainDepth };
}

function ioError(hash: string, pack: string, cause: unknown): StoreError {
  return new StoreError({
    code: 'STORE_IO',
    message: `Cannot read blob ${hash} from pack ${pack}: ${(cause as Error).message}. The pack file may have been removed by hand.`,
    details: { hash, pack },
    cause,
  });
}
