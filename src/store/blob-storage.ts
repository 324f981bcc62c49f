import type { BlobEncoding, BlobRecord } from '../model/index.js';

// The storage a backend gives the blob store: encoded bytes in, records and bytes out, and the
// optional raw-first staging. Split from store.ts, which re-exports every name.

/** Encoded blob bytes with their index record, ready to be stored. */
export interface StoredBlobInput {
  record: Omit<BlobRecord, 'createdAt'>;
  bytes: Buffer;
}

export interface BlobStorageStats {
  blobCount: number;
  /** Sum of original sizes. */
  rawBytes: number;
  /** Sum of stored (encoded) sizes. */
  storedBytes: number;
  /** Bytes the backend occupies for blobs, including dead space not yet reclaimed. */
  footprintBytes: number;
}

/**
 * Raw blob persistence. `src/blobs/` does hashing, compression, deltas and verification on top.
 * Bytes are durable before any index row refers to them; a crash leaves at worst unreferenced
 * bytes, which `deleteMany`/`compact` reclaim.
 */
export interface BlobStorage {
  /** Store many blobs durably with one sync; hashes already present are skipped. */
  putMany(items: StoredBlobInput[]): Promise<void>;
  /**
   * Optional: `putMany` in two phases, for callers that overlap the sync with their own I/O (a
   * checkpointed tool write syncs the blobs while the file's own fsync runs): the bytes are written
   * and their sync started now; nothing is readable until `commit` resolves. Without it, callers
   * store everything in `commit` with `putMany`.
   */
  beginPutMany?(items: StoredBlobInput[]): PendingBlobWrite;
  getRecord(hash: string): Promise<BlobRecord | null>;
  getRecords(hashes: readonly string[]): Promise<Map<string, BlobRecord>>;
  /** The stored (encoded) bytes of a blob; throws `BLOB_NOT_FOUND` when absent. */
  readStored(hash: string): Promise<Buffer>;
  /** Which of these hashes are stored. */
  has(hashes: readonly string[]): Promise<Set<string>>;
  listRecords(): Promise<BlobRecord[]>;
  /** Remove blobs and reclaim their space; returns the stored bytes freed. */
  deleteMany(hashes: readonly string[]): Promise<{ freedBytes: number }>;
  stats(): Promise<BlobStorageStats>;
}

/**
 * Blobs whose bytes are written and being synced, not yet indexed (see `BlobStorage.beginPutMany`).
 * Exactly one of `commit` / `abort` must be called.
 */
export interface PendingBlobWrite {
  /** Blobs this write stores (hashes already present were skipped). */
  readonly count: number;
  /** Waits until the bytes are durable, then indexes them in one transaction: then they are readable. */
  commit(): Promise<void>;
  /** Gives up: nothing becomes readable; the bytes are dead space that compaction reclaims. */
  abort(): void;
}

/**
 * How a staged (raw) blob is to be kept for good: whole, or (only when `encode` was handed a
 * dictionary) a delta whose base is that dictionary's blob.
 */
export type RecompressEncoding = { encoding: 'raw' | 'deflate'; bytes: Buffer } | { encoding: 'delta'; bytes: Buffer; baseHash: string };

/** A preset dictionary for one chunk of staged blobs, stored as a blob of its own (whole) beside them. */
export interface RecompressDictionary {
  hash: string;
  content: Buffer;
  stored: { encoding: 'raw' | 'deflate'; bytes: Buffer };
}

export interface RecompressOptions {
  /**
   * Encode one staged blob for good (the blob layer's codec: deflate when it pays, else raw; with
   * `dictionary`, a delta against it when that is smaller).
   */
  encode(content: Buffer, blob: { hash: string; size: number }, dictionary?: RecompressDictionary): RecompressEncoding;
  /**
   * Optional: a dictionary for a chunk, given its whole staged contents (null: none). The backend
   * stores it in the same transaction that points blobs at it, so it is never swept in between.
   */
  dictionary?(contents: readonly Buffer[]): RecompressDictionary | null;
  /**
   * Optional: new bytes for a blob stored before (not staged), same encoding and base, to keep for
   * good; null to leave it as it is. Each blob is offered once per pass; a blob it returns bytes for
   * is offered again only if those bytes ask for it (the codec marks what it re-encoded). The
   * backend points the row at the new bytes only once they are durable, and only if the row still
   * names the bytes it read.
   */
  reencode?(stored: Buffer, blob: { hash: string; size: number; encoding: BlobEncoding }): Buffer | null;
  /** Stop once this many staged bytes were processed (checked between chunks). */
  maxBytes?: number;
  /** Stop once this much time went by (checked between chunks of about 8 MiB). */
  budgetMs?: number;
}

/** What one recompress pass did. */
export interface RecompressReport {
  /** Staged blobs moved out of staging: deflated, or kept raw for good when deflate saves < 1/32. */
  blobsMoved: number;
  blobsDeflated: number;
  /** Staged bytes read, and the bytes now stored for them. */
  bytesIn: number;
  bytesOut: number;
  /** Blobs stored before that `reencode` rewrote, and the stored bytes that saved in all (a marked blob may grow by a byte). */
  blobsReencoded?: number;
  reencodeSavedBytes?: number;
  /** Staging files removed and their size on disk (the footprint given back). */
  packsRemoved: number;
  bytesReclaimed: number;
  /** Staged blobs and bytes still waiting (budget reached, or packs live writers still append to). */
  pendingBlobs: number;
  pendingBytes: number;
}

/** A recompress pass that did nothing: the start of every report. */
export const EMPTY_RECOMPRESS_REPORT: Readonly<RecompressReport> = Object.freeze({
  blobsMoved: 0,
  blobsDeflated: 0,
  bytesIn: 0,
  bytesOut: 0,
  packsRemoved: 0,
  bytesReclaimed: 0,
  pendingBlobs: 0,
  pendingBytes: 0,
});

export interface StagedBlobBatch {
  readonly count: number;
  add(hash: string, content: Buffer): void;
  commit(): Promise<void>;
  abort(): void;
}

/**
 * Optional capability of a `BlobStorage` (`capabilities.blobStaging`): write whole blobs raw as fast
 * as the disk takes them (staging) and re-encode them for good later. Backends without it get
 * eager compression. The SQLite backend's `PackBlobStorage` provides it.
 */
export interface StagingBlobStorage {
  /** `staged: true` writes whole raw blobs into staging. */
  putMany(items: StoredBlobInput[], options?: { staged?: boolean }): Promise<void>;
  /** Stream whole blobs raw into staging as they arrive; durable and indexed on `commit`. */
  openStagedBatch(): StagedBlobBatch;
  /** Re-encode staged blobs for good, within the optional budget. */
  recompress(options: RecompressOptions): Promise<RecompressReport>;
  /** Staged blobs still waiting for `recompress`. */
  stagedBacklog(): Promise<{ blobs: number; bytes: number }>;
}
