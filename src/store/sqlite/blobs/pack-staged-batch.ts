import type Database from 'better-sqlite3';
import { StoreError } from '../../../model/index.js';
import type { IndexInsert } from './blob-index-rows.js';
import type { OpenPack, PackWriter } from './pack-writer.js';

/**
 * Whole blobs streamed raw into this process's staging pack as they arrive, then made durable
 * (one fsync) and indexed (one transaction) by `commit`. Nothing is held in memory but the write
 * queue, and writeback starts in the background while the caller goes on (see `PackWriter`).
 *
 * Hashes are trusted (the caller just computed them; every read verifies). A hash already in the
 * store keeps its row: the bytes written for it are dead space, reclaimed when
 * the recompress pass empties the staging pack. Until `commit` returns nothing is indexed; an
 * aborted or crashed batch leaves only unindexed bytes, which compaction sweeps.
 */
export class PackStagedBatch {
  private pack: OpenPack | null = null;
  private readonly rows: Array<{ hash: string; offset: number; size: number }> = [];
  private readonly seen = new Set<string>();
  private state: 'open' | 'committing' | 'done' = 'open';

  constructor(
    private readonly db: Database.Database,
    private readonly writer: PackWriter,
    private readonly insert: IndexInsert,
  ) {}

  /** Blobs added so far (distinct hashes). */
  get count(): number {
    return this.rows.length;
  }

  /** Queue one whole blob, kept raw. A hash already added to this batch is ignored. */
  add(hash: string, content: Buffer): void {
    if (this.state !== 'open')
      throw new StoreError({ code: 'STORE_CLOSED', message: 'This blob batch was already committed or aborted; open a new one.', details: { hash } });
    if (this.seen.has(hash)) return;
    this.seen.add(hash);
    this.pack ??= this.writer.openStream();
    try {
      this.rows.push({ hash, offset: this.writer.stream(this.pack, content), size: content.length });
    } catch (error) {
      this.abort();
      throw error;
    }
  }

  /** Make every added blob durable, then index them all in one immediate transaction. */
  async commit(): Promise<void> {
    if (this.state !== 'open') throw new StoreError({ code: 'STORE_CLOSED', message: 'This blob batch was already committed or aborted.', details: {} });
    this.state = 'committing';
    const pack = this.pack;
    if (!pack) {
      this.state = 'done';
      return;
    }
    try {
      await this.writer.syncStream(pack);
      const now = Date.now();
      this.db
        .transaction(() => {
          for (const row of this.rows) {
            this.insert({
              hash: row.hash,
              pack: pack.name,
              offset: row.offset,
              storedSize: row.size,
              size: row.size,
              encoding: 'raw',
              baseHash: null,
              chainDepth: 0,
              createdAtMs: now,
            });
          }
        })
        .immediate();
    } finally {
      this.state = 'done';
      this.writer.closeStream(pack);
    }
  }

  /** Give up: nothing of this batch gets indexed. */
  abort(): void {
    if (this.state !== 'open') return;
    this.state = 'done';
    if (this.pack) this.writer.closeStream(this.pack);
  }
}
