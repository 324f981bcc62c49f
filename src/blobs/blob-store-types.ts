/** What `BlobStore`'s methods take and hand back: put options and inputs, and the handles of batched writes. */

export interface PutBlobOptions {
  /**
   * Hash of a stored blob this content is likely close to (the previous version of the same file).
   * The blob is stored as a delta against it when that is smaller; an unknown base is ignored.
   */
  baseHash?: string;
}

/**
 * One item of `putMany`: bare content, or content with a delta base. `hash` may pass the content's
 * sha256 when the caller already computed it (a scan did): it is trusted here, and every read
 * verifies it, so a wrong one surfaces as `BLOB_CORRUPT`, never as wrong bytes. `verified: true`
 * says more: `hash` was computed from these very bytes, or they were read from this store and
 * verified against it. Such an item may then also serve as the delta base of another item of the
 * batch without being read back from storage (as items without `hash` do).
 */
export type BlobInput = Buffer | ({ content: Buffer; hash?: string; verified?: boolean } & PutBlobOptions);

/**
 * When whole blobs are compressed. `eager`: deflate now (when it saves ≥ 1/32). `deferred`: store
 * them raw now, in staging, and let `compress()` deflate them later (deltas are still computed
 * now: they are small and need the base at hand). `auto` (default): `deferred` for a batch whose
 * new content reaches `DEFERRED_BATCH_BYTES`, else `eager` except for blobs of at least
 * `STAGED_ALONE_BYTES`, which are staged whatever the batch. A backend that cannot stage (see
 * `StagingBlobStorage`) always compresses eagerly.
 */
export type BlobCompression = 'auto' | 'eager' | 'deferred';

export interface PutManyOptions {
  compression?: BlobCompression;
}

export interface CompressOptions {
  /** Stop after about this much time (checked between chunks of about 8 MiB); default no limit. */
  budgetMs?: number;
  /** Stop after about this many staged bytes; default no limit. */
  maxBytes?: number;
}

/**
 * Whole blobs streamed into storage raw, as they are added (nothing held in memory), compressed
 * later by `BlobStore.compress`. Nothing is readable before `commit` resolves.
 */
export interface DeferredBlobBatch {
  /** Blobs added so far (distinct hashes). */
  readonly count: number;
  /** Add one blob; `hash` must be the sha256 of `content` (trusted here, verified on every read). */
  add(content: Buffer, hash: string): void;
  /** Make everything added durable and readable (one sync, one transaction). */
  commit(): Promise<void>;
  /** Give up: nothing added becomes readable; the space is reclaimed by compaction. */
  abort(): void;
}

/** Blobs hashed, encoded and written, waiting to be made readable (see `BlobStore.beginPutMany`). */
export interface PendingBlobPut {
  /** The hashes of the items, in input order. */
  readonly hashes: string[];
  /** How many blobs this write stores (the rest were already stored, or staged at once). */
  readonly newBlobs: number;
  /**
   * Waits until the bytes are durable, then indexes them; returns `hashes`. Blobs that were found
   * stored already are checked again and stored anew if a GC swept them since: a caller that pins
   * the hashes (`BlobStore.pin`) before `commit` (and whose delta bases are items of the batch)
   * can rely on every hash being readable afterwards.
   */
  commit(): Promise<string[]>;
  /** Gives up: nothing of this write becomes readable. */
  abort(): void;
}
