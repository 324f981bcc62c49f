import { BlobCorruptError, NotFoundError, WaypointError, type BlobRecord } from '../model/index.js';
import type { Store, StoredBlobInput } from '../store/store.js';
import { decodeDeltaBlob, decodeWhole, encodeDeltaBlob, encodeWhole, type EncodedBlob } from './blob-codec.js';
import { collectGarbage, type GcOptions, type GcReport } from './gc.js';
import { hashContent } from '../model/index.js';

/** What `BlobStore` needs from a store: its blob storage and the GC roots. */
export type BlobStoreBackend = Pick<Store, 'blobs' | 'blobRoots'>;

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
 * verifies it, so a wrong one surfaces as `BLOB_CORRUPT`, never as wrong bytes.
 */
export type BlobInput = Buffer | ({ content: Buffer; hash?: string } & PutBlobOptions);

export interface BlobStoreOptions {
  /** Longest delta chain a read may have to walk (default 16); past it the blob is stored whole. */
  maxChainDepth?: number;
}

export const DEFAULT_MAX_CHAIN_DEPTH = 16;

/**
 * Content-addressed blobs on top of a `Store`: sha256 addresses, identical content stored once,
 * deflate when it helps, deltas against a previous version, and verification on every read.
 *
 * @example
 * const blobs = new BlobStore(store);
 * const v1 = await blobs.put(Buffer.from('one\ntwo\n'));
 * const v2 = await blobs.put(Buffer.from('one\n2\n'), { baseHash: v1 });
 * (await blobs.get(v2)).toString(); // 'one\n2\n'
 */
export class BlobStore {
  private readonly maxChainDepth: number;

  constructor(
    private readonly store: BlobStoreBackend,
    options: BlobStoreOptions = {},
  ) {
    this.maxChainDepth = options.maxChainDepth ?? DEFAULT_MAX_CHAIN_DEPTH;
  }

  /** Store one blob; returns its hash. */
  async put(content: Buffer, options: PutBlobOptions = {}): Promise<string> {
    const [hash] = await this.putMany([{ content, ...options }]);
    return hash!;
  }

  /**
   * Store many blobs in one storage batch (one sync); returns their hashes in input order.
   * A base may also be an earlier item of the same batch.
   */
  async putMany(items: readonly BlobInput[]): Promise<string[]> {
    const inputs = items.map((item) => (Buffer.isBuffer(item) ? { content: item, baseHash: undefined, hash: undefined } : item));
    const hashes = inputs.map((input) => input.hash ?? hashContent(input.content));
    const present = await this.store.blobs.has([...new Set(hashes)]);
    const baseHashes = new Set<string>();
    for (const input of inputs) if (input.baseHash) baseHashes.add(input.baseHash);
    const baseRecords = baseHashes.size > 0 ? await this.store.blobs.getRecords([...baseHashes]) : new Map<string, BlobRecord>();

    const batch = new Map<string, { content: Buffer; chainDepth: number }>();
    const stored: StoredBlobInput[] = [];
    const baseContents = new Map<string, Buffer | null>();
    for (const [index, input] of inputs.entries()) {
      const hash = hashes[index]!;
      if (present.has(hash) || batch.has(hash)) continue;
      let encoded: EncodedBlob = encodeWhole(input.content);
      let baseHash: string | null = null;
      let chainDepth = 0;
      const base = input.baseHash;
      const baseDepth = base === undefined || base === hash ? undefined : (batch.get(base)?.chainDepth ?? baseRecords.get(base)?.chainDepth);
      if (base !== undefined && baseDepth !== undefined && baseDepth < this.maxChainDepth) {
        const baseContent = batch.get(base)?.content ?? (await this.baseContent(base, baseContents));
        if (baseContent) {
          const delta = encodeDeltaBlob(baseContent, input.content);
          if (delta.bytes.length < encoded.bytes.length) {
            encoded = delta;
            baseHash = base;
            chainDepth = baseDepth + 1;
          }
        }
      }
      batch.set(hash, { content: input.content, chainDepth });
      stored.push({
        record: { hash, size: input.content.length, storedSize: encoded.bytes.length, encoding: encoded.encoding, baseHash, chainDepth },
        bytes: encoded.bytes,
      });
    }
    if (stored.length > 0) await this.store.blobs.putMany(stored);
    return hashes;
  }

  /**
   * The content of a blob, verified against its hash on every read. Throws `BLOB_NOT_FOUND` when
   * absent and `BlobCorruptError` when the bytes cannot be decoded or do not hash to `hash`.
   */
  async get(hash: string): Promise<Buffer> {
    return this.read(hash, new Map());
  }

  /** Several blobs, each verified; bases shared by their delta chains are read once. */
  async getMany(hashes: readonly string[]): Promise<Map<string, Buffer>> {
    const decoded = new Map<string, Buffer>();
    const result = new Map<string, Buffer>();
    for (const hash of hashes) if (!result.has(hash)) result.set(hash, await this.read(hash, decoded));
    return result;
  }

  async has(hash: string): Promise<boolean> {
    return (await this.store.blobs.has([hash])).has(hash);
  }

  /** The index record of a blob (sizes, encoding, delta base); throws `BLOB_NOT_FOUND`. */
  async stat(hash: string): Promise<BlobRecord> {
    const record = await this.store.blobs.getRecord(hash);
    if (!record) throw new NotFoundError({ entity: 'blob', id: hash });
    return record;
  }

  /** Mark-and-sweep from `store.blobRoots()`; see `collectGarbage`. */
  async gc(options: GcOptions = {}): Promise<GcReport> {
    return collectGarbage(this.store, options);
  }

  /**
   * Decode `hash`, walking its delta chain down to a whole blob (or to a base already in
   * `decoded`), then verify. `decoded` collects every level, unverified, for reuse as a base only.
   */
  private async read(hash: string, decoded: Map<string, Buffer>): Promise<Buffer> {
    const first = await this.store.blobs.getRecord(hash);
    if (!first) throw new NotFoundError({ entity: 'blob', id: hash });
    const chain: BlobRecord[] = [first];
    let below: Buffer | undefined;
    for (let record = first; !decoded.has(record.hash) && record.encoding === 'delta'; ) {
      const baseHash = record.baseHash!;
      if (decoded.has(baseHash)) break;
      if (chain.length > this.maxChainDepth * 4 + 1 || chain.some((link) => link.hash === baseHash)) {
        throw new BlobCorruptError({ hash, reason: `its delta chain loops or is too long at ${record.hash}` });
      }
      const base = await this.store.blobs.getRecord(baseHash);
      if (!base) throw new BlobCorruptError({ hash, reason: `its delta base ${baseHash} is missing` });
      chain.push(base);
      record = base;
    }
    for (let level = chain.length - 1; level >= 0; level--) {
      const record = chain[level]!;
      const cached = decoded.get(record.hash);
      if (cached) {
        below = cached;
        continue;
      }
      const bytes = await this.store.blobs.readStored(record.hash);
      try {
        below = record.encoding === 'delta' ? decodeDeltaBlob(below ?? decoded.get(record.baseHash!)!, bytes) : decodeWhole(record.encoding, bytes);
      } catch (error) {
        throw new BlobCorruptError({ hash, reason: `its stored bytes${record.hash === hash ? '' : ` (delta base ${record.hash})`} cannot be decoded: ${(error as Error).message}`, cause: error });
      }
      decoded.set(record.hash, below);
    }
    const content = below!;
    if (content.length !== first.size || hashContent(content) !== hash) {
      throw new BlobCorruptError({ hash, reason: 'its decoded content does not match its hash' });
    }
    return content;
  }

  /** A base's content for delta encoding, read (and verified) once per batch; null when unusable. */
  private async baseContent(hash: string, cache: Map<string, Buffer | null>): Promise<Buffer | null> {
    if (cache.has(hash)) return cache.get(hash)!;
    let content: Buffer | null = null;
    try {
      content = await this.get(hash);
    } catch (error) {
      // A corrupt or vanished base is no reason to refuse new content: store it whole instead.
      if (!WaypointError.is(error)) throw error;
    }
    cache.set(hash, content);
    return content;
  }
}
