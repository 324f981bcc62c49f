import type { BlobStorage, StoredBlobInput } from '../store/store.js';

/**
 * What raw-first storage needs from a blob backend, beyond `BlobStorage`: a place to write whole
 * blobs raw as fast as the disk takes them (staging), and a pass that later re-encodes them for
 * good. A capability, not part of the contract: backends without it get eager compression. The
 * SQLite backend's `PackBlobStorage` provides it (staging packs, `PackRecompressor`).
 */
export interface StagingBlobStorage {
  /** `staged: true` writes whole raw blobs into staging. */
  putMany(items: StoredBlobInput[], options?: { staged?: boolean }): Promise<void>;
  /** Stream whole blobs raw into staging as they arrive; durable and indexed on `commit`. */
  openStagedBatch(): StagedBlobBatch;
  /** Re-encode staged blobs for good with `encode`, within the optional budget. */
  recompress(options: {
    encode(content: Buffer, blob: { hash: string; size: number }): { encoding: 'raw' | 'deflate'; bytes: Buffer };
    maxBytes?: number;
    budgetMs?: number;
  }): Promise<CompressReport>;
  /** Staged blobs still waiting for `recompress`. */
  stagedBacklog(): Promise<{ blobs: number; bytes: number }>;
}

export interface StagedBlobBatch {
  readonly count: number;
  add(hash: string, content: Buffer): void;
  commit(): Promise<void>;
  abort(): void;
}

/** What one compress pass did (`BlobStore.compress`). */
export interface CompressReport {
  /** Staged blobs moved out of staging: deflated, or kept raw for good when deflate saves < 1/32. */
  blobsMoved: number;
  blobsDeflated: number;
  /** Staged bytes read, and the bytes now stored for them. */
  bytesIn: number;
  bytesOut: number;
  /** Staging files removed and their size on disk (the footprint given back). */
  packsRemoved: number;
  bytesReclaimed: number;
  /** Staged blobs and bytes still waiting (budget reached, or packs live writers still append to). */
  pendingBlobs: number;
  pendingBytes: number;
}

export const EMPTY_COMPRESS_REPORT: Readonly<CompressReport> = Object.freeze({
  blobsMoved: 0,
  blobsDeflated: 0,
  bytesIn: 0,
  bytesOut: 0,
  packsRemoved: 0,
  bytesReclaimed: 0,
  pendingBlobs: 0,
  pendingBytes: 0,
});

/** Whether a backend's blob storage can stage raw blobs (see `StagingBlobStorage`). */
export function canStage(storage: BlobStorage): storage is BlobStorage & StagingBlobStorage {
  const candidate = storage as BlobStorage & Partial<StagingBlobStorage>;
  return typeof candidate.openStagedBatch === 'function' && typeof candidate.recompress === 'function' && typeof candidate.stagedBacklog === 'function';
}
