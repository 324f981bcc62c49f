import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { hashContent } from '../model/index.js';
import type { BlobInput, BlobPin, BlobStore, DeferredBlobBatch } from '../blobs/index.js';
import type { Snapshot, Workspace } from '../workspace/index.js';

/** Bytes handed to one `BlobStore.putMany` (one pack append, one fsync). */
const BATCH_BYTES = 32 * 1024 * 1024;
const BATCH_ITEMS = 4096;

/**
 * Collects the bytes a scan read (its `onContent` callback) and stores them as blobs after the
 * scan, in batches, each delta-encoded against the path's previous version when there is one. The
 * scanner is synchronous, so contents are held until it returns; past `memoryBudgetBytes` only the
 * path and hash are kept and the file is read again afterwards. A file that changed in between is
 * stored as it is now, and its snapshot entry takes the new hash (its stat signature is stale, so
 * the next scan reads it again). Batches of 8 MiB or more are stored raw first (`BlobStore`'s
 * `auto` compression) and deflated later by `BlobStore.compress` / GC.
 *
 * With a `stream` (the first scan of a workspace: no previous versions, so no deltas), each file
 * goes to storage raw as soon as it is read: nothing is held, nothing is read twice, and the
 * disk writes while the scan goes on; `flush` commits the stream.
 *
 * Everything stored is pinned (from before it is stored) until `release`: the caller releases
 * once the rows and pins that name the contents committed, so no GC sweeps them in between.
 *
 * `flush` may hold its last batch back (`hold`): `storeHeld` then stores it together with the
 * caller's own blobs (a scan state) in one append, so the two cost one fsync. The caller stores
 * them before any row naming the contents is committed.
 */
export class ScanBlobSink {
  private readonly held: Array<{ path: string; hash: string; content: Buffer | null }> = [];
  private byPath: Map<string, Buffer | null> | null = null;
  private heldBytes = 0;
  private readonly streamedHashes: string[] = [];
  private readonly pins: BlobPin[] = [];
  private heldBatch: StoredItem[] = [];

  constructor(
    private readonly previous: Snapshot | null,
    private readonly memoryBudgetBytes: number,
    private readonly stream: DeferredBlobBatch | null = null,
  ) {}

  readonly onContent = (path: string, content: Buffer, hash: string): void => {
    if (this.stream) {
      this.stream.add(content, hash);
      this.streamedHashes.push(hash);
      return;
    }
    const keep = this.heldBytes + content.length <= this.memoryBudgetBytes;
    if (keep) this.heldBytes += content.length;
    this.held.push({ path, hash, content: keep ? content : null });
  };

  /** Contents read by the scan, by path (only those still held in memory; none when streamed). */
  contentOf(path: string): Buffer | null {
    this.byPath ??= new Map(this.held.map((item) => [item.path, item.content]));
    return this.byPath.get(path) ?? null;
  }

  get count(): number {
    return this.held.length + this.streamedHashes.length;
  }

  /** Give up on what was streamed (the scan failed): none of it becomes readable. */
  abort(): void {
    this.stream?.abort();
  }

  /**
   * Stores everything collected (with `hold`, all but the last batch, pinned and kept for
   * {@link storeHeld}); fixes `snapshot` entries of files that changed since the scan read them.
   */
  async flush(blobs: BlobStore, workspace: Workspace, snapshot: Snapshot, racyBeforeMs: number, options: { hold?: boolean } = {}): Promise<void> {
    if (this.stream) {
      this.pins.push(await blobs.pin(this.streamedHashes));
      await this.stream.commit();
    }
    let batch: StoredItem[] = [];
    let batchBytes = 0;
    for (const item of this.held) {
      let content = item.content;
      let hash = item.hash;
      if (content === null) {
        content = this.reread(workspace, item.path, snapshot, racyBeforeMs);
        if (content === null) continue;
        hash = snapshot.get(item.path)!.hash!;
      }
      // The scan hashed these bytes already; BlobStore trusts the hash and verifies it on read.
      const baseHash = this.previous?.get(item.path)?.hash ?? undefined;
      batch.push(baseHash && baseHash !== hash ? { content, hash, baseHash } : { content, hash });
      batchBytes += content.length;
      if (batchBytes >= BATCH_BYTES || batch.length >= BATCH_ITEMS) {
        await this.store(blobs, batch);
        batch = [];
        batchBytes = 0;
      }
    }
    if (batch.length === 0) return;
    if (options.hold) {
      this.pins.push(await blobs.pin(hashesOf(batch)));
      this.heldBatch.push(...batch);
    } else await this.store(blobs, batch);
  }

  /**
   * Stores the batch `flush` held back followed by `extra`, in one `putMany` (one append, one
   * fsync); returns the hashes of `extra`. Nothing held and no `extra`: stores nothing.
   */
  async storeHeld(blobs: BlobStore, extra: readonly BlobInput[] = []): Promise<string[]> {
    const held = this.heldBatch.splice(0);
    if (held.length === 0 && extra.length === 0) return [];
    const hashes = await blobs.putMany([...held, ...extra]);
    return hashes.slice(held.length);
  }

  /** Lets go of the pins taken while storing (idempotent). */
  async release(): Promise<void> {
    const pins = this.pins.splice(0);
    await Promise.all(pins.map((pin) => pin.release()));
  }

  /** One batch, pinned with its delta bases before anything is stored. */
  private async store(blobs: BlobStore, batch: StoredItem[]): Promise<void> {
    this.pins.push(await blobs.pin(hashesOf(batch)));
    await blobs.putMany(batch);
  }

  /**
   * Reads a file again after the scan. Same stat signature and not racy (the stat cache's rule):
   * the scan's hash stands. Otherwise the bytes are hashed, and a different hash replaces the
   * entry's (its stat signature is then stale, so the next scan reads it again).
   */
  private reread(workspace: Workspace, path: string, snapshot: Snapshot, racyBeforeMs: number): Buffer | null {
    const entry = snapshot.get(path);
    if (!entry) return null;
    let content: Buffer;
    let unchanged: boolean;
    try {
      const target = workspace.resolveKey(path, { followLink: false });
      const stats = lstatSync(target.entryPath);
      content = entry.kind === 'symlink' ? readlinkSync(target.entryPath, { encoding: 'buffer' }) : readFileSync(target.entryPath);
      unchanged =
        stats.size === entry.size &&
        stats.size === content.length &&
        stats.mtimeMs === entry.mtimeMs &&
        stats.ctimeMs === entry.ctimeMs &&
        stats.ino === entry.ino &&
        entry.mtimeMs < racyBeforeMs;
    } catch {
      // Gone or unreadable now: the snapshot keeps the scanned hash; no content means a later
      // checkpoint of this file reports its before as missing rather than inventing one.
      return null;
    }
    if (unchanged) return content;
    const hash = hashContent(content);
    if (hash !== entry.hash) {
      entry.hash = hash;
      entry.size = content.length;
    }
    return content;
  }
}

type StoredItem = Exclude<BlobInput, Buffer> & { hash: string };

/** A batch's hashes and delta bases (pinned together: a base must outlive its delta's store). */
function hashesOf(batch: readonly StoredItem[]): string[] {
  const hashes = new Set<string>();
  for (const item of batch) {
    hashes.add(item.hash);
    if (item.baseHash) hashes.add(item.baseHash);
  }
  return [...hashes];
}
