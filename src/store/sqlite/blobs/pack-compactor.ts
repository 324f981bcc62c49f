import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { isPackFileName, isProcessAlive, isStagingPackName } from './pack-file-name.js';
import type { PackReader } from './pack-reader.js';
import type { PackWriter } from './pack-writer.js';

export interface CompactOptions {
  /**
   * Rewrite a pack when live (indexed) bytes are less than this share of its file size
   * (default 0.5). 1 rewrites every pack holding any dead or orphan byte.
   */
  minLiveRatio?: number;
}

export interface CompactResult {
  /** Packs whose live blobs were copied into a new pack before the old file was removed. */
  packsRewritten: number;
  /** Pack files removed (rewritten ones, packs left without live blobs, stray files). */
  packsRemoved: number;
  /** File bytes given back to the file system. */
  bytesReclaimed: number;
}

/** A blob row as a pack rewrite reads it. */
export interface LiveRow {
  hash: Buffer;
  offset: number;
  length: number;
  size: number;
  encoding: number;
}

export interface PackTransform {
  offered: (row: LiveRow) => boolean;
  /** New bytes by row index, for offered rows only. */
  replace: (rows: readonly LiveRow[], stored: readonly Buffer[]) => Map<number, Buffer>;
}

export interface RewriteResult {
  bytesMoved: number;
  /** Indexes of rows given new bytes whose rows were repointed to them. */
  repointed: number[];
}

export interface PackRow {
  name: string;
  pid: number;
  state: 'open' | 'sealed';
}

/**
 * Reclaims dead space in pack files: bytes of deleted blobs and orphan bytes a crashed writer
 * synced but never indexed. Only packs no live process appends to are touched: sealed packs and
 * open packs of dead processes (this writer's own pack is sealed first when it qualifies). A pack
 * file is unlinked only after a committed transaction shows no index row refers to it.
 *
 * Staging packs (raw blobs waiting for compression) are compacted into this process's staging
 * pack, so their blobs stay staged: copying them into a packed pack would keep them raw for good.
 * The recompress pass (`PackRecompressor`) moves them out, compressed, by the same rules.
 */
export class PackCompactor {
  constructor(
    private readonly db: Database.Database,
    private readonly packDir: string,
    private readonly reader: PackReader,
    private readonly writer: PackWriter,
    private readonly stagingWriter: PackWriter = writer,
  ) {}

  /** Every registered pack, oldest first: what compaction, the compress pass and re-encoding walk. */
  registeredPacks(): PackRow[] {
    return this.db.prepare('SELECT name, pid, state FROM blob_packs ORDER BY created_at, name').all() as PackRow[];
  }

  compact(options: CompactOptions = {}): CompactResult {
    const minLiveRatio = options.minLiveRatio ?? 0.5;
    const result: CompactResult = { packsRewritten: 0, packsRemoved: 0, bytesReclaimed: 0 };
    // List files before reading registrations: a pack is registered before its file is created,
    // so a listed file without a registration can only be a pack whose removal was interrupted.
    const files = this.listPackFiles();
    const packs = this.registeredPacks();
    const live = this.liveBytesByPack();
    const registered = new Set(packs.map((pack) => pack.name));

    for (const file of files) {
      if (registered.has(file)) continue;
      result.bytesReclaimed += this.unlink(file);
      result.packsRemoved++;
    }

    // A pack with a write in flight (bytes streamed, rows not committed yet) is never sealed here:
    // it would then look finished, and its not-yet-indexed bytes like dead space.
    const own = this.writer.streaming ? null : this.writer.currentPack;
    if (own) {
      const size = this.fileSize(own);
      if (size > 0 && (live.get(own) ?? 0) < size * minLiveRatio) this.writer.seal();
    }
    const ownStaging = this.stagingWriter === this.writer ? null : this.stagingWriter.currentPack;
    if (ownStaging && !this.stagingWriter.streaming) {
      const size = this.fileSize(ownStaging);
      if (size > 0 && (live.get(ownStaging) ?? 0) < size * minLiveRatio) this.stagingWriter.seal();
    }

    for (const pack of packs) {
      if (pack.name === this.writer.currentPack || pack.name === this.stagingWriter.currentPack) continue;
      if (pack.state === 'open' && pack.name !== own && pack.name !== ownStaging && isProcessAlive(pack.pid)) continue;
      const size = this.fileSize(pack.name);
      const liveBytes = live.get(pack.name) ?? 0;
      if (liveBytes === 0) {
        const removed = this.removeIfUnreferenced(pack.name);
        if (removed !== null) {
          result.bytesReclaimed += removed;
          result.packsRemoved++;
        }
        continue;
      }
      if (pack.state === 'open') this.db.prepare(`UPDATE blob_packs SET state = 'sealed' WHERE name = ?`).run(pack.name);
      if (liveBytes >= size * minLiveRatio) continue;
      const moved = this.rewritePack(pack.name);
      if (moved === null) continue;
      result.packsRewritten++;
      const removed = this.removeIfUnreferenced(pack.name);
      if (removed !== null) {
        result.bytesReclaimed += removed - moved.bytesMoved;
        result.packsRemoved++;
      }
    }
    return result;
  }

  /**
   * Unregister and unlink a pack that no index row refers to (checked inside the transaction that
   * drops its registration). Returns the file's size, or null when a row still refers to it.
   */
  removeIfUnreferenced(pack: string): number | null {
    if (!this.unregister(pack)) return null;
    return this.unlink(pack);
  }

  /**
   * Copies a pack's live blobs into this writer's pack (staging into staging), then repoints their
   * rows in one transaction, each only if it still names the place that was read. `transform` may
   * give new bytes for rows it is `offered` (same content, same encoding): those go in instead; a
   * pack with no offered row is not even read. Returns the
   * bytes moved and the indexes of the replaced rows that were repointed, or null when the pack is
   * gone or truncated, or the transform replaced nothing (the pack then stays as it is).
   */
  rewritePack(pack: string, transform?: PackTransform): RewriteResult | null {
    const rows = this.db
      .prepare(
        'SELECT hash, pack_offset AS offset, stored_size AS length, size, encoding FROM blob_index WHERE pack = (SELECT id FROM blob_packs WHERE name = ?) ORDER BY pack_offset',
      )
      .all(pack) as LiveRow[];
    if (transform && !rows.some(transform.offered)) return null;
    const stored: Buffer[] = [];
    try {
      for (const row of rows) {
        const bytes = this.reader.read(pack, row.offset, row.length);
        // A truncated pack cannot be rewritten faithfully; leave it for a person to inspect.
        if (bytes.length !== row.length) return null;
        stored.push(bytes);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const replaced = transform?.replace(rows, stored) ?? new Map<number, Buffer>();
    if (transform && replaced.size === 0) return null;
    const buffers = stored.map((bytes, index) => replaced.get(index) ?? bytes);
    const target = (isStagingPackName(pack) ? this.stagingWriter : this.writer).append(buffers);
    const update = this.db.prepare(
      'UPDATE blob_index SET pack = (SELECT id FROM blob_packs WHERE name = ?), pack_offset = ?, stored_size = ? WHERE hash = ? AND pack = (SELECT id FROM blob_packs WHERE name = ?) AND pack_offset = ? AND stored_size = ?',
    );
    const repointed: number[] = [];
    this.db
      .transaction(() => {
        for (const [index, row] of rows.entries()) {
          const changes = update.run(target.pack, target.offsets[index]!, buffers[index]!.length, row.hash, pack, row.offset, row.length).changes;
          if (changes > 0 && replaced.has(index)) repointed.push(index);
        }
      })
      .immediate();
    return { bytesMoved: buffers.reduce((sum, buffer) => sum + buffer.length, 0), repointed };
  }

  /** Drop a pack's registration if nothing refers to it any more (checked inside the transaction). */
  private unregister(pack: string): boolean {
    return this.db
      .transaction(() => {
        const referenced = this.db.prepare('SELECT 1 FROM blob_index WHERE pack = (SELECT id FROM blob_packs WHERE name = ?) LIMIT 1').get(pack);
        if (referenced) return false;
        this.db.prepare('DELETE FROM blob_packs WHERE name = ?').run(pack);
        return true;
      })
      .immediate();
  }

  private liveBytesByPack(): Map<string, number> {
    const rows = this.db
      .prepare('SELECT p.name AS pack, SUM(i.stored_size) AS bytes FROM blob_index i JOIN blob_packs p ON p.id = i.pack GROUP BY i.pack')
      .all() as Array<{ pack: string; bytes: number }>;
    return new Map(rows.map((row) => [row.pack, row.bytes]));
  }

  private listPackFiles(): string[] {
    try {
      return readdirSync(this.packDir).filter(isPackFileName);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  private fileSize(pack: string): number {
    try {
      return statSync(join(this.packDir, pack)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  /** Remove a pack file; returns its size (0 when it was already gone). */
  private unlink(pack: string): number {
    const size = this.fileSize(pack);
    this.reader.forget(pack);
    try {
      unlinkSync(join(this.packDir, pack));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return 0;
    }
    return size;
  }
}
