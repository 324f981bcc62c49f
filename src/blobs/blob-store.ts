import {
  checkHash,
  checkHashes,
  checkOptions,
  checkPut,
  checkPutMany,
  CompressOptionsSchema,
  GcOptionsSchema,
  ReadOptionsSchema,
} from './blob-input-schemas.js';
import { BlobCorruptError, InvalidArgumentError, NotFoundError, WaypointError, type BlobRecord } from '../model/index.js';
import type { PendingBlobWrite, StagedBlobBatch, Store, StoredBlobInput } from '../store/store.js';
import { BROTLI_WHOLE_MIN_BYTES, deltaSeq, encodeDeltaBlob, encodeWhole, PACKED_RECOMPRESS, type EncodedBlob } from './blob-codec.js';
import { decodeChain } from './chain-decode.js';
import { planDelta, type DeltaLink } from './delta-base.js';
import { DecodedCache } from './decoded-cache.js';
import { canStage, EMPTY_COMPRESS_REPORT, type CompressReport } from './deferred-compression.js';
import { pinBlobs, type BlobPin } from './blob-pin.js';
import { collectGarbage, type GcOptions, type GcReport } from './gc.js';
import { hashContent } from '../model/index.js';
import { SharedBases } from './shared-bases.js';
import type { BlobInput, CompressOptions, DeferredBlobBatch, PendingBlobPut, PutBlobOptions, PutManyOptions } from './blob-store-types.js';

/**
 * What `BlobStore` needs from a store: its blob storage and the GC roots; with write intents and
 * `sweepBlobs` (every `Store` has them) pins and a GC that is safe beside writers.
 */
export type BlobStoreBackend = Pick<Store, 'blobs' | 'blobRoots'> & Partial<Pick<Store, 'sweepBlobs' | 'recordWriteIntent' | 'finishWriteIntent'>>;

export type { BlobCompression, BlobInput, CompressOptions, DeferredBlobBatch, PendingBlobPut, PutBlobOptions, PutManyOptions } from './blob-store-types.js';

/**
 * `auto` batches whose new content reaches this size are stored raw first: deflating 8 MiB costs
 * about 0.1 s on the 2-core bench box, the point where the later rewrite starts paying for itself.
 */
export const DEFERRED_BATCH_BYTES = 8 * 1024 * 1024;

export interface BlobStoreOptions {
  /** Longest delta chain a read may have to walk (default 16); past it the blob is stored whole. */
  maxChainDepth?: number;
}

export const DEFAULT_MAX_CHAIN_DEPTH = 16;
/** A whole blob at the bottom of a chain this large is kept as the base of the file's other versions (hashing a smaller one costs more than reading it again). */
const LARGE_BASE = 64 * 1024;

/** Below this, deflate never pays (`encodeWhole` keeps them raw): not worth staging. */
const MIN_STAGED_BYTES = 32;

/**
 * `auto` stages whole blobs this large even in a small batch: the compress pass gives them Brotli
 * (`encodeForGood`), which on the replay's tree took a 460 KB source file and a 1.2 MB lock file
 * from 216 KB deflated at write time to about 145 KB, and the capture is spared deflating them.
 * Until the pass runs they take their raw size: at 64 KiB (where Brotli starts) the blobs bench's
 * 100 edits of a 100 KB file took 109 KiB before the pass instead of 40.
 */
export const STAGED_ALONE_BYTES = 4 * BROTLI_WHOLE_MIN_BYTES;

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
  private readonly sharedBases = new SharedBases();
  /** Contents read lately, verified (see `DecodedCache`): 32 MiB. */
  private readonly recent = new DecodedCache(32 * 1024 * 1024);

  constructor(
    private readonly store: BlobStoreBackend,
    options: BlobStoreOptions = {},
  ) {
    this.maxChainDepth = options.maxChainDepth ?? DEFAULT_MAX_CHAIN_DEPTH;
  }

  /** Store one blob; returns its hash. */
  async put(content: Buffer, options: PutBlobOptions = {}): Promise<string> {
    checkPut(content, options);
    const [hash] = await this.putMany([{ content, ...options }]);
    return hash!;
  }

  /**
   * Store many blobs in one storage batch (one sync per destination); returns their hashes in
   * input order. A base may also be an earlier item of the same batch. Large batches are stored
   * raw first and compressed later (see `BlobCompression`, `compress`).
   */
  async putMany(items: readonly BlobInput[], options: PutManyOptions = {}): Promise<string[]> {
    return (await this.beginPutMany(items, options)).commit();
  }

  /**
   * `putMany` in two phases, so a caller can overlap the blob sync with its own I/O: hashing,
   * encoding and writing the bytes happen now and their sync starts in the background; `commit`
   * waits for it and indexes the blobs (readable from then on, never before their bytes are
   * durable); `abort` gives up. Call exactly one of them.
   *
   * @example
   * const pending = await blobs.beginPutMany([before, { content: after, baseHash }])
   * await Promise.all([pending.commit(), fileWrite.sync()])
   */
  async beginPutMany(items: readonly BlobInput[], options: PutManyOptions = {}): Promise<PendingBlobPut> {
    checkPutMany(items, options);
    const inputs = items.map((item) => (Buffer.isBuffer(item) ? { content: item, baseHash: undefined, hash: undefined, verified: undefined } : item));
    const hashes = inputs.map((input) => input.hash ?? hashContent(input.content));
    // One lookup tells which blobs are stored already and the chain depth of every base.
    const baseHashes = new Set<string>();
    for (const input of inputs) if (input.baseHash) baseHashes.add(input.baseHash);
    const records = await this.store.blobs.getRecords([...new Set([...hashes, ...baseHashes])]);
    const present = new Set(hashes.filter((hash) => records.has(hash)));
    const storage = this.store.blobs;
    let deferred = false;
    const stagesLarge = canStage(storage) && options.compression !== 'eager';
    if (stagesLarge) {
      let newBytes = 0;
      if (options.compression !== 'deferred')
        inputs.forEach((input, index) => {
          newBytes += present.has(hashes[index]!) ? 0 : input.content.length;
        });
      deferred = options.compression === 'deferred' || newBytes >= DEFERRED_BATCH_BYTES;
    }
    const staged: StoredBlobInput[] = [];
    // Contents handed in and hashed here, stored or not: a base among them needs no read from
    // storage (the usual case: a file's previous version, already stored, passed with its next
    // version). Caller-given hashes are not used for this unless the caller vouches for them
    // (`verified`): a wrong one must not spoil other blobs.
    const given = new Map<string, Buffer>();
    inputs.forEach((input, index) => {
      if (input.hash === undefined || input.verified === true) given.set(hashes[index]!, input.content);
    });

    const batch = new Map<string, { content: Buffer; chainDepth: number; baseHash: string | null; deltaSeq: number }>();
    const lookup = async (link: string): Promise<DeltaLink | null> =>
      batch.get(link) ?? this.storedLink(records.get(link) ?? (await this.store.blobs.getRecord(link)));
    // Found stored already: checked again at commit, in case a GC swept them meanwhile.
    const reused = new Map<string, { content: Buffer; hash: string }>();
    const stored: StoredBlobInput[] = [];
    const baseContents = new Map<string, Buffer | null>();
    for (const [index, input] of inputs.entries()) {
      const hash = hashes[index]!;
      if (present.has(hash)) reused.set(hash, { content: input.content, hash });
      if (present.has(hash) || batch.has(hash)) continue;
      // Deferred (or large): the whole form stays raw for now (staged, compressed later by compress()).
      const stageable = input.content.length >= (deferred ? MIN_STAGED_BYTES : stagesLarge ? STAGED_ALONE_BYTES : Number.POSITIVE_INFINITY);
      let encoded: EncodedBlob | null = stageable ? { encoding: 'raw', bytes: input.content } : null;
      let baseHash: string | null = null;
      let chainDepth = 0;
      let deltaSeq = 0;
      const previous = input.baseHash === undefined || input.baseHash === hash ? null : await lookup(input.baseHash);
      const plan = previous ? await planDelta(input.baseHash!, previous, this.maxChainDepth, lookup) : null;
      if (plan !== null && plan.baseHash !== hash) {
        const baseContent = given.get(plan.baseHash) ?? (await this.baseContent(plan.baseHash, baseContents));
        if (baseContent) {
          const delta = encodeDeltaBlob(baseContent, input.content, plan.deltaSeq);
          // A delta at most 1/8 of the content beats any whole encoding worth having: skip deflating it.
          encoded ??= delta.bytes.length * 8 <= input.content.length ? null : encodeWhole(input.content);
          if (encoded === null || delta.bytes.length < encoded.bytes.length) {
            encoded = delta;
            ({ baseHash, chainDepth, deltaSeq } = plan);
          }
        }
      }
      encoded ??= encodeWhole(input.content);
      batch.set(hash, { content: input.content, chainDepth, baseHash, deltaSeq });
      (stageable && baseHash === null ? staged : stored).push({
        record: {
          hash,
          size: input.content.length,
          storedSize: encoded.bytes.length,
          encoding: encoded.encoding,
          baseHash,
          chainDepth,
          ...(deltaSeq > 0 ? { deltaSeq } : {}),
        },
        bytes: encoded.bytes,
      });
    }
    // Staged first: a delta stored below may have a staged blob of this batch as its base.
    if (staged.length > 0 && canStage(storage)) await storage.putMany(staged, { staged: true });
    const pending: PendingBlobWrite =
      stored.length === 0
        ? { count: 0, commit: async () => undefined, abort: () => undefined }
        : storage.beginPutMany
          ? storage.beginPutMany(stored)
          : { count: stored.length, commit: () => storage.putMany(stored), abort: () => undefined };
    let settled = false;
    return {
      hashes,
      newBlobs: stored.length,
      commit: async () => {
        if (settled) throw new InvalidArgumentError({ parameter: 'commit', value: null, reason: 'this blob write was already committed or aborted' });
        settled = true;
        await pending.commit();
        if (reused.size > 0) {
          // A blob found stored may have been swept since, by a GC that ran before the caller
          // pinned it: store it again (once pinned, nothing sweeps it, so this check suffices).
          const still = await this.store.blobs.has([...reused.keys()]);
          const vanished = [...reused.values()].filter((item) => !still.has(item.hash));
          if (vanished.length > 0) await this.putMany(vanished, { compression: 'eager' });
        }
        return hashes;
      },
      abort: () => {
        if (settled) return;
        settled = true;
        pending.abort();
      },
    };
  }

  /**
   * A batch that writes whole blobs raw into storage as they are added, for callers producing
   * many blobs in a row (the first scan of a workspace): nothing is held in memory and nothing is
   * deflated now; `compress` does that later. Null when the backend cannot stage (then use `putMany`).
   *
   * @example
   * const batch = blobs.openDeferredBatch();
   * for (const file of files) batch?.add(file.content, file.hash);
   * await batch?.commit();
   */
  openDeferredBatch(): DeferredBlobBatch | null {
    const storage = this.store.blobs;
    if (!canStage(storage)) return null;
    const inner: StagedBlobBatch = storage.openStagedBatch();
    return {
      get count() {
        return inner.count;
      },
      add: (content, hash) => inner.add(hash, content),
      commit: () => inner.commit(),
      abort: () => inner.abort(),
    };
  }

  /**
   * Compress blobs that were stored raw first: each is deflated when that saves ≥ 1/32 (else kept
   * raw for good) and moved out of staging; emptied staging space is given back. Content addresses
   * never change and every read stays verified; safe while other processes read and write. Runs
   * in chunks of about 8 MiB, yielding between them; `budgetMs` / `maxBytes` bound one pass (what
   * is left is reported as pending). `gc()` runs it too.
   */
  async compress(options: CompressOptions = {}): Promise<CompressReport> {
    checkOptions(CompressOptionsSchema, options);
    const storage = this.store.blobs;
    if (!canStage(storage)) return { ...EMPTY_COMPRESS_REPORT };
    return storage.recompress({
      ...PACKED_RECOMPRESS,
      ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    });
  }

  /** Blobs stored raw first that still wait for `compress`, and their bytes. */
  async compressionBacklog(): Promise<{ blobs: number; bytes: number }> {
    const storage = this.store.blobs;
    return canStage(storage) ? storage.stagedBacklog() : { blobs: 0, bytes: 0 };
  }

  /**
   * The content of a blob, verified against its hash on every read. Throws `BLOB_NOT_FOUND` when
   * absent and `BlobCorruptError` when the bytes cannot be decoded or do not hash to `hash`.
   */
  async get(hash: string): Promise<Buffer> {
    checkHash(hash);
    return this.read(hash, new Map());
  }

  /** Several blobs, each verified; bases shared by their delta chains are read once. */
  async getMany(hashes: readonly string[]): Promise<Map<string, Buffer>> {
    checkHashes(hashes);
    const decoded = new Map<string, Buffer>();
    const result = new Map<string, Buffer>();
    for (const hash of hashes) if (!result.has(hash)) result.set(hash, await this.read(hash, decoded));
    return result;
  }

  /**
   * Several blobs, each verified; bases shared by their delta chains are read once. A blob that
   * cannot be read (`BLOB_NOT_FOUND`, `BlobCorruptError`, an I/O error) is reported as rejected with
   * its error; the others are still read.
   *
   * `readOnly`: the caller only reads the contents (writes them to files, hashes or compares them)
   * and never hands them on, so a content kept in memory is given as is rather than copied (a
   * copy of a 1 MB file costs about a millisecond). Changing such a Buffer's bytes would change what
   * every later read of its hash gets.
   */
  async getManySettled(hashes: readonly string[], options: { readOnly?: boolean } = {}): Promise<Map<string, PromiseSettledResult<Buffer>>> {
    checkHashes(hashes);
    checkOptions(ReadOptionsSchema, options);
    const readOnly = options.readOnly === true;
    const decoded = new Map<string, Buffer>();
    const result = new Map<string, PromiseSettledResult<Buffer>>();
    // Their index records in one lookup, not one each (a record missing here is looked up again when read).
    const records = hashes.length > 1 ? await this.store.blobs.getRecords([...new Set(hashes)]) : new Map<string, BlobRecord>();
    for (const hash of hashes) {
      if (result.has(hash)) continue;
      try {
        result.set(hash, { status: 'fulfilled', value: await this.read(hash, decoded, records.get(hash), readOnly) });
      } catch (error) {
        result.set(hash, { status: 'rejected', reason: error });
      }
    }
    return result;
  }

  async has(hash: string): Promise<boolean> {
    checkHash(hash);
    return (await this.store.blobs.has([hash])).has(hash);
  }

  /** Which of `hashes` the store holds (indexed; the content is not read or verified). */
  async hasMany(hashes: readonly string[]): Promise<Set<string>> {
    checkHashes(hashes);
    return hashes.length === 0 ? new Set() : this.store.blobs.has(hashes);
  }

  /** The index record of a blob (sizes, encoding, delta base); throws `BLOB_NOT_FOUND`. */
  async stat(hash: string): Promise<BlobRecord> {
    checkHash(hash);
    const record = await this.store.blobs.getRecord(hash);
    if (!record) throw new NotFoundError({ entity: 'blob', id: hash });
    return record;
  }

  /**
   * Keeps `hashes` (and what deltas on them need: pass the bases too) from being swept until
   * `release`: take it before storing blobs whose referencing row is written later, release it
   * once that row committed. See `pinBlobs`.
   */
  async pin(hashes: readonly string[], options: { sessionId?: string | null } = {}): Promise<BlobPin> {
    return pinBlobs(this.store, hashes, options);
  }

  /** Mark-and-sweep from `store.blobRoots()`, then `compress`; see `collectGarbage`. */
  async gc(options: GcOptions = {}): Promise<GcReport> {
    checkOptions(GcOptionsSchema, options);
    return collectGarbage(this.store, options);
  }

  /**
   * `readOnce`, again when it failed because a record changed under it: the compress pass
   * re-encodes a blob between our reading its record and its bytes (another process, or this one
   * between awaits). Content addresses never change, so the new record decodes to the same bytes.
   */
  private async read(hash: string, decoded: Map<string, Buffer>, record?: BlobRecord, readOnly = false): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      const chain: BlobRecord[] = [];
      const added: string[] = [];
      try {
        // A record looked up beforehand serves the first attempt only: a retry reads it afresh.
        return await this.readOnce(hash, decoded, chain, added, attempt === 0 ? record : undefined, readOnly);
      } catch (error) {
        if (!(error instanceof BlobCorruptError) || attempt >= 2 || !(await this.changedSince(chain))) throw error;
        for (const level of added) decoded.delete(level);
      }
    }
  }

  /** Whether any of these records now reads differently (encoding, stored size or base). */
  private async changedSince(chain: readonly BlobRecord[]): Promise<boolean> {
    if (chain.length === 0) return false;
    const now = await this.store.blobs.getRecords(chain.map((record) => record.hash));
    return chain.some((record) => {
      const current = now.get(record.hash);
      return !current || current.encoding !== record.encoding || current.storedSize !== record.storedSize || current.baseHash !== record.baseHash;
    });
  }

  /**
   * Decode `hash`, walking its delta chain down to a whole blob (or to a base already in
   * `decoded`), then verify. `decoded` collects levels, unverified, for reuse as a base only (see
   * `decodeChain`); `chain` receives the records used and `added` the levels this call put into
   * `decoded`.
   */
  private async readOnce(
    hash: string,
    decoded: Map<string, Buffer>,
    chain: BlobRecord[],
    added: string[],
    record?: BlobRecord,
    readOnly = false,
  ): Promise<Buffer> {
    const first = record ?? (await this.store.blobs.getRecord(hash));
    if (!first) throw new NotFoundError({ entity: 'blob', id: hash });
    const known = readOnly ? this.recent.peek(hash) : this.recent.get(hash);
    if (known !== undefined) return known;
    chain.push(first);
    for (let record = first; !decoded.has(record.hash) && record.encoding === 'delta'; ) {
      const baseHash = record.baseHash!;
      if (decoded.has(baseHash)) break;
      // A base kept in memory serves only while the store still holds it too.
      const kept = this.recent.get(baseHash);
      if (kept !== undefined && (await this.store.blobs.getRecord(baseHash))) {
        decoded.set(baseHash, kept);
        break;
      }
      const shared = this.sharedBases.get(baseHash);
      if (shared) {
        decoded.set(baseHash, shared);
        added.push(baseHash);
        break;
      }
      if (chain.length > this.maxChainDepth * 4 + 1 || chain.some((link) => link.hash === baseHash)) {
        throw new BlobCorruptError({ hash, reason: `its delta chain loops or is too long at ${record.hash}` });
      }
      const base = await this.store.blobs.getRecord(baseHash);
      if (!base) throw new BlobCorruptError({ hash, reason: `its delta base ${baseHash} is missing` });
      chain.push(base);
      record = base;
    }
    const content = await decodeChain(
      hash,
      chain,
      decoded,
      added,
      (record) => this.store.blobs.readStored(record.hash),
      (record, whole) => this.sharedBases.keep(record, whole),
    );
    if (content.length !== first.size || hashContent(content) !== hash) {
      throw new BlobCorruptError({ hash, reason: 'its decoded content does not match its hash' });
    }
    this.recent.set(hash, content);
    // A large file's base serves its other versions too (a small one is read again faster than it is hashed here).
    const bottom = chain[chain.length - 1]!;
    const whole = bottom.encoding === 'delta' ? undefined : decoded.get(bottom.hash);
    if (bottom !== first && whole !== undefined && whole.length >= LARGE_BASE && this.recent.keeps(whole.length) && hashContent(whole) === bottom.hash)
      this.recent.set(bottom.hash, whole);
    return content;
  }

  /** A stored blob as a link for `planDelta`: its place in its line of versions is in its delta's bytes. Null when unreadable. */
  private async storedLink(record: BlobRecord | null | undefined): Promise<DeltaLink | null> {
    if (!record) return null;
    if (record.encoding !== 'delta') return { chainDepth: record.chainDepth, baseHash: null, deltaSeq: 0 };
    try {
      return { chainDepth: record.chainDepth, baseHash: record.baseHash, deltaSeq: deltaSeq(await this.store.blobs.readStored(record.hash)) };
    } catch (error) {
      if (!WaypointError.is(error)) throw error;
      return null;
    }
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
