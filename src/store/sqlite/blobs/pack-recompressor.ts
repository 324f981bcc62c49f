import type Database from 'better-sqlite3';
import type { BlobEncoding } from '../../../model/index.js';
import { EMPTY_RECOMPRESS_REPORT, type RecompressOptions, type RecompressReport } from '../../store.js';
import type { PackCompactor } from './pack-compactor.js';
import { isProcessAlive, isStagingPackName } from './pack-file-name.js';
import type { PackReader } from './pack-reader.js';
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
    const packs = this.db.prepare('SELECT name, pid, state FROM blob_packs ORDER BY created_at, name').all() as Array<{
      name: string;
      pid: number;
      state: string;
    }>;
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
    const pending = this.pending();
    result.pendingBlobs = pending.blobs;
    result.pendingBytes = pending.bytes;
    return result;
  }

  /** Staged blobs not yet recompressed, and their bytes. */
  pending(): { blobs: number; bytes: number } {
    const staging = (this.db.prepare('SELECT name FROM blob_packs').pluck().all() as string[]).filter(isStagingPackName);
    if (staging.length === 0) return { blobs: 0, bytes: 0 };
    const row = this.db
      .prepare(
        'SELECT COUNT(*) AS blobs, COALESCE(SUM(stored_size), 0) AS bytes FROM blob_index WHERE pack IN (SELECT id FROM blob_packs WHERE name IN (SELECT value FROM json_each(?)))',
      )
      .get(JSON.stringify(staging)) as { blobs: number; bytes: number };
    return row;
  }

  /** Move every live blob of `pack`, chunk by chunk. False when stopped early (budget, or the pack is unreadable). */
  private async drain(pack: string, options: RecompressOptions, result: RecompressReport, outOfBudget: () => boolean): Promise<boolean> {
    const rows = this.db
      .prepare(
        'SELECT lower(hex(hash)) AS hash, pack_offset AS offset, stored_size AS length, size, encoding FROM blob_index WHERE pack = (SELECT id FROM blob_packs WHERE name = ?) ORDER BY pack_offset',
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
      const encoded = chunk.map((row) => {
        const stored = span.subarray(row.offset - chunk[0]!.offset, row.offset - chunk[0]!.offset + row.length);
        // Only whole raw blobs are staged; anything else (or a size that disagrees) is copied as it is.
        return row.encoding === 'raw' && stored.length === row.size ? options.encode(stored, row) : { encoding: row.encoding, bytes: stored };
      });
      const target = this.writer.append(encoded.map((item) => item.bytes));
      const update = this.db.prepare(
        'UPDATE blob_index SET pack = (SELECT id FROM blob_packs WHERE name = ?), pack_offset = ?, stored_size = ?, encoding = ? WHERE hash = unhex(?) AND pack = (SELECT id FROM blob_packs WHERE name = ?) AND pack_offset = ?',
      );
      this.db
        .transaction(() => {
          chunk.forEach((row, index) => {
            const item = encoded[index]!;
            const changes = update.run(target.pack, target.offsets[index]!, item.bytes.length, item.encoding, row.hash, pack, row.offset).changes;
            if (changes === 0) return;
            result.blobsMoved++;
            if (item.encoding === 'deflate') result.blobsDeflated++;
            result.bytesOut += item.bytes.length;
          });
        })
        .immediate();
      result.bytesIn += chunk.reduce((sum, row) => sum + row.length, 0);
      // Let other work in this process run between chunks (reads, writes, timers).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (start < rows.length && outOfBudget()) return false;
    }
    return true;
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
