import { hashContent, type BlobRecord } from '../model/index.js';

/** How many shared bases are kept decoded, and the largest kept (a compress pass's dictionary is 32 KiB). */
const SHARED_BASES = 8;
const SHARED_BASE_MAX_BYTES = 64 * 1024;

/**
 * Small whole delta bases kept decoded once verified: a compress pass's dictionary is the base of
 * thousands of small blobs, and reading one of them should not read and inflate it every time.
 * Content addresses never change, so a verified entry never goes stale.
 */
export class SharedBases {
  private readonly bases = new Map<string, Buffer>();

  get(hash: string): Buffer | undefined {
    return this.bases.get(hash);
  }

  /** Keep `content` (decoded as a base for another blob) when it is small and matches its hash. */
  keep(record: BlobRecord, content: Buffer): void {
    if (record.size > SHARED_BASE_MAX_BYTES || this.bases.has(record.hash)) return;
    if (content.length !== record.size || hashContent(content) !== record.hash) return;
    if (this.bases.size >= SHARED_BASES) this.bases.delete(this.bases.keys().next().value!);
    this.bases.set(record.hash, content);
  }
}
