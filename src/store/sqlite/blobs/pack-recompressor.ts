import type Database from 'better-sqlite3';
import { InvalidArgumentError, type BlobEncoding } from '../../../model/index.js';
import { EMPTY_RECOMPRESS_REPORT, type RecompressDictionary, type RecompressOptions, type RecompressReport } from '../../store.js';
import { ENCODING_CODES, prepareIndexInsert, type IndexInsert } from './blob-index-rows.js';
import type { PackCompactor } from './pack-compactor.js';
import { isProcessAlive, isStagingPackName } from './pack-file-name.js';
import type { PackReader } from './pack-reader.js';
import { PackReencoder } from './pack-reencoder.js';
import type { PackWriter } from './pack-writer.js';

interface StagedRow {
  hash: string;
  offset: number;
  length: number;
  size: number;
  encoding: BlobEncoding;
}

/** Input bytes encoded, appended (one fsync) and repointed (one transaction) at a time. */
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * The "compress later" half of raw-first storage: moves the live blobs of staging packs into this
 * process's packed pack, encoded for good, then removes each staging file once no row refers to it.
 * Follows the compactor's rules: packs are never modified in place; only sealed staging packs and
 * open ones of dead processes are touched (this writer's own staging pack is sealed first unless a
 * batch is streaming into it); new bytes are fsynced before rows are repointed (one transaction per
 * chunk, each row only if it still points where it was read); a file is unlinked only after a
 * committed transaction shows no row refers to it. A crash at any point leaves every row pointing
 * at durable bytes; what was copied but not repointed is orphan space that compaction sweeps.
 */
export class PackRecompressor {
  private insertRow: IndexInsert | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly reader: PackReader,
    private readonly writer: PackWriter,
    private readonly stagingWriter: PackWriter,
    private readonly compactor: PackCompactor,
  ) {}

  async recompress(options: RecompressOptions): Promise<RecompressReport> {
    const started = performance.now();
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const budgetMs = options.budgetMs ?? Number.POSITIVE_INFINITY;
    const result: RecompressReport = { ...EMPTY_RECOMPRESS_REPORT };
    const outOfBudget = () => result.bytesIn >= maxBytes || performance.now() - started >= budgetMs;

    if (!this.stagingWriter.streaming) this.stagingWriter.seal();
    const packs = this.compactor.registeredPacks();
    for (const pack of packs) {
      if (!isStagingPackName(pack.name)) continue;
      if (outOfBudget()) break;
      if (pack.state === 'open') {
        if (isProcessAlive(pack.pid)) continue;
        this.db.prepare(`UPDATE blob_packs SET state = 'sealed' WHERE name = ?`).run(pack.name);
      }
      const finished = await this.drain(pack.name, options, result, outOfBudget);
      if (!finished) continue;
      const removed = this.compactor.removeIfUnreferenced(pack.name);
      if (removed !== null) {
        result.packsRemoved++;
        result.bytesReclaimed += removed;
      }
    }
    // Then what was compressed as it was written, once each (see `PackReencoder`).
    if (options.reencode && !outOfBudget()) await new PackReencoder(this.writer, this.compactor).reencode(options.reencode, result, outOfBudget);
    const pending = this.pending();
    result.pendingBlobs = pending.blobs;
    result.pendingBytes = pending.bytes;
    return result;
  }

  /** Staged blobs not yet recompressed, and their bytes (staging packs hold only raw rows: `blob_index_raw` finds them). */
  pending(): { blobs: number; bytes: number } {
    const staging = (this.db.prepare('SELECT name FROM blob_packs').pluck().all() as string[]).filter(isStagingPackName);
    if (staging.length === 0) return { blobs: 0, bytes: 0 };
    const row = this.db
      .prepare(
        'SELECT COUNT(*) AS blobs, COALESCE(SUM(stored_size), 0) AS bytes FROM blob_index WHERE encoding = 0 AND pack IN (SELECT id FROM blob_packs WHERE name IN (SELECT value FROM json_each(?)))',
      )
      .get(JSON.stringify(staging)) as { blobs: number; bytes: number };
    return row;
  }

  /**
   * Move every live blob of `pack` (staged blobs are raw: only whole raw blobs are staged, and
   * compaction copies them as they are), chunk by chunk. The pack is removed afterwards only if
   * no row at all refers to it. False when stopped early (budget, or the pack is unreadable).
   */
  private async drain(pack: string, options: RecompressOptions, result: RecompressReport, outOfBudget: () => boolean): Promise<boolean> {
    const rows = this.db
      .prepare(
        "SELECT lower(hex(hash)) AS hash, pack_offset AS offset, stored_size AS length, size, 'raw' AS encoding FROM blob_index WHERE encoding = 0 AND pack = (SELECT id FROM blob_packs WHERE name = ?) ORDER BY pack_offset",
      )
      .all(pack) as StagedRow[];
    for (let start = 0; start < rows.length; ) {
      let end = start;
      let spanEnd = rows[start]!.offset;
      while (end < rows.length && (end === start || spanEnd - rows[start]!.offset < CHUNK_BYTES)) {
        spanEnd = Math.max(spanEnd, rows[end]!.offset + rows[end]!.length);
        end++;
      }
      const chunk = rows.slice(start, end);
      start = end;
      const span = this.readSpan(pack, chunk[0]!.offset, spanEnd - chunk[0]!.offset);
      // A vanished or truncated pack cannot be moved faithfully; leave it for a person to inspect.
      if (span === null) return false;
      let unfinished = false;
      const whole = (row: StagedRow, stored: Buffer) => row.encoding === 'raw' && stored.length === row.size;
      const contents = chunk.map((row) => span.subarray(row.offset - chunk[0]!.offset, row.offset - chunk[0]!.offset + row.length));
      const dictionary = this.chunkDictionary(chunk, contents, options);
      const encoded = chunk.map((row, index) => {
        const stored = contents[index]!;
        // Only whole raw blobs are staged; anything else (or a size that disagrees) is copied as it is.
        return whole(row, stored)
          ? { ...options.encode(stored, row, dictionary ?? undefined), copied: false }
          : { encoding: row.encoding, bytes: stored, copied: true };
      });
      for (const item of encoded) {
        if (!item.copied && item.encoding === 'delta' && (!dictionary || !('baseHash' in item) || item.baseHash !== dictionary.hash)) {
          throw new InvalidArgumentError({
            parameter: 'encode',
            value: item.encoding,
            reason: 'a recompressed blob can only be a delta against the chunk dictionary',
          });
        }
      }
      const againstDictionary = (item: (typeof encoded)[number]) => !item.copied && item.encoding === 'delta';
      const usesDictionary = dictionary !== null && encoded.some(againstDictionary);
      // The dictionary's bytes go first in the same append, so they are durable before any row names them.
      const appended = this.writer.append([...(usesDictionary ? [dictionary.stored.bytes] : []), ...encoded.map((item) => item.bytes)]);
      const offsets = usesDictionary ? appended.offsets.slice(1) : appended.offsets;
      const where = 'WHERE hash = unhex(?) AND pack = (SELECT id FROM blob_packs WHERE name = ?) AND pack_offset = ?';
      const update = this.db.prepare(
        `UPDATE blob_index SET pack = (SELECT id FROM blob_packs WHERE name = ?), pack_offset = ?, stored_size = ?, encoding = ? ${where}`,
      );
      const updateDelta = this.db.prepare(
        `UPDATE blob_index SET pack = (SELECT id FROM blob_packs WHERE name = ?), pack_offset = ?, stored_size = ?, encoding = ${ENCODING_CODES.delta},
          base = (SELECT id FROM blob_bases WHERE hash = unhex(?)), chain_depth = 1 ${where}`,
      );
      this.db
        .transaction(() => {
          // In the transaction that points blobs at it: a GC sweep cannot fall between storing it and its first use.
          const dictionaryReady = usesDictionary && this.storeDictionary(dictionary, appended.pack, appended.offsets[0]!);
          chunk.forEach((row, index) => {
            const item = encoded[index]!;
            const delta = againstDictionary(item);
            if (delta && !dictionaryReady) return; // stays staged for the next pass
            const changes = delta
              ? updateDelta.run(appended.pack, offsets[index]!, item.bytes.length, dictionary!.hash, row.hash, pack, row.offset).changes
              : update.run(appended.pack, offsets[index]!, item.bytes.length, ENCODING_CODES[item.encoding], row.hash, pack, row.offset).changes;
            if (changes === 0) return;
            result.blobsMoved++;
            if (item.encoding !== 'raw') result.blobsDeflated++;
            result.bytesOut += item.bytes.length;
          });
          if (usesDictionary && !dictionaryReady) unfinished = true;
        })
        .immediate();
      result.bytesIn += chunk.reduce((sum, row) => sum + row.length, 0);
      // Let other work in this process run between chunks (reads, writes, timers).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (unfinished || (start < rows.length && outOfBudget())) return false;
    }
    return true;
  }

  /**
   * The caller's dictionary for this chunk's whole staged blobs, unless its content is one of them
   * or is stored as a delta already (a blob would then end up a delta of itself, or a chain loop).
   */
  private chunkDictionary(chunk: readonly StagedRow[], contents: readonly Buffer[], options: RecompressOptions): RecompressDictionary | null {
    if (!options.dictionary) return null;
    const dictionary = options.dictionary(contents.filter((content, index) => chunk[index]!.encoding === 'raw' && content.length === chunk[index]!.size));
    if (!dictionary || chunk.some((row) => row.hash === dictionary.hash)) return null;
    const existing = this.db.prepare('SELECT encoding FROM blob_index WHERE hash = unhex(?)').pluck().get(dictionary.hash) as number | undefined;
    return existing === undefined || existing !== ENCODING_CODES.delta ? dictionary : null;
  }

  /**
   * Index the dictionary appended at `offset` of `pack`, inside the caller's transaction; a row of
   * the same content already there serves as well. False when that row is a delta (a concurrent
   * pass made it one): the chunk's dictionary deltas then wait for the next pass.
   */
  private storeDictionary(dictionary: RecompressDictionary, pack: string, offset: number): boolean {
    const existing = this.db.prepare('SELECT encoding FROM blob_index WHERE hash = unhex(?)').pluck().get(dictionary.hash) as number | undefined;
    if (existing === ENCODING_CODES.delta) return false;
    if (existing === undefined) {
      this.insert({
        hash: dictionary.hash,
        pack,
        offset,
        storedSize: dictionary.stored.bytes.length,
        size: dictionary.content.length,
        encoding: dictionary.stored.encoding,
        baseHash: null,
        chainDepth: 0,
        createdAtMs: Date.now(),
      });
    }
    // The chunk's deltas name it by its id in `blob_bases`.
    this.db.prepare('INSERT INTO blob_bases (hash) VALUES (unhex(?)) ON CONFLICT (hash) DO NOTHING').run(dictionary.hash);
    return true;
  }

  private get insert(): IndexInsert {
    this.insertRow ??= prepareIndexInsert(this.db);
    return this.insertRow;
  }

  private readSpan(pack: string, offset: number, length: number): Buffer | null {
    try {
      const bytes = this.reader.read(pack, offset, length);
      return bytes.length === length ? bytes : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}
