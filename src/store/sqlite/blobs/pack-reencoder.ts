import type { RecompressOptions, RecompressReport } from '../../store.js';
import { ENCODING_CODES } from './blob-index-rows.js';
import type { LiveRow, PackCompactor } from './pack-compactor.js';
import { isProcessAlive, isStagingPackName } from './pack-file-name.js';
import type { PackWriter } from './pack-writer.js';

/**
 * Smaller stored blobs are not offered: a deflated whole blob this small gains a few bytes at most,
 * and every Brotli delta body is larger (Brotli is tried only on deltas of 512 bytes or more).
 */
const MIN_STORED_BYTES = 64;

/**
 * The second half of a compress pass: blobs compressed as they were written (never staged) get
 * `RecompressOptions.reencode`'s bytes for good. A pack holding any such blob is rewritten whole,
 * as compaction rewrites one: its live blobs (re-encoded or as they are) are appended to this
 * process's packed pack and fsynced, then one transaction repoints the rows, each only if it still
 * names the pack and offset that were read, and the old file is removed once no row names it. The
 * old bytes are thus never left behind as dead space, and a pack is read again only while it holds
 * blobs the codec has not marked done. Encodings and delta bases stay as they were, so reads, GC's
 * mark and its sweep see the same graph. A crash before the transaction leaves every row on its old,
 * durable bytes (the new ones are orphan space that compaction sweeps). Packs a live process may
 * still append to (this process's own pack is sealed first unless a write streams into it), and
 * staging packs (the first half's), are left alone.
 */
export class PackReencoder {
  constructor(
    private readonly writer: PackWriter,
    private readonly compactor: PackCompactor,
  ) {}

  async reencode(reencode: NonNullable<RecompressOptions['reencode']>, result: RecompressReport, outOfBudget: () => boolean): Promise<void> {
    // This process's own pack is sealed first (unless a write streams into it), so its blobs are offered too.
    if (!this.writer.streaming) this.writer.seal();
    const packs = this.compactor.registeredPacks();
    for (const pack of packs) {
      if (outOfBudget()) return;
      if (isStagingPackName(pack.name) || pack.name === this.writer.currentPack) continue;
      if (pack.state === 'open' && isProcessAlive(pack.pid)) continue;
      if (this.rewrite(pack.name, reencode, result) && this.compactor.removeIfUnreferenced(pack.name) !== null) result.packsRemoved++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Re-encode what `reencode` offers new bytes for and move the pack's live blobs; false when nothing changed (the pack stays). */
  private rewrite(pack: string, reencode: NonNullable<RecompressOptions['reencode']>, result: RecompressReport): boolean {
    const saved = new Map<number, number>();
    const offered = (row: LiveRow) => row.encoding !== ENCODING_CODES.raw && row.length >= MIN_STORED_BYTES;
    const replace = (rows: readonly LiveRow[], stored: readonly Buffer[]) => {
      const replaced = new Map<number, Buffer>();
      rows.forEach((row, index) => {
        if (!offered(row)) return;
        const encoding = row.encoding === ENCODING_CODES.delta ? 'delta' : 'deflate';
        try {
          const bytes = reencode(stored[index]!, { hash: row.hash.toString('hex'), size: row.size, encoding });
          if (bytes === null) return;
          replaced.set(index, bytes);
          saved.set(index, row.length - bytes.length);
        } catch {
          // Undecodable bytes are moved as they are: reads report them, and a person may want to see them.
        }
      });
      return replaced;
    };
    const rewritten = this.compactor.rewritePack(pack, { offered, replace });
    if (rewritten === null) return false;
    for (const index of rewritten.repointed) {
      result.blobsReencoded = (result.blobsReencoded ?? 0) + 1;
      result.reencodeSavedBytes = (result.reencodeSavedBytes ?? 0) + saved.get(index)!;
    }
    return true;
  }
}
