import type { BlobStore } from '../../blobs/index.js';
import { BlobCorruptError, WaypointError } from '../../model/index.js';

/** A snapshot read: its bytes, or why they cannot be had. */
export type SnapshotRead = { ok: true; content: Buffer } | { ok: false; status: 'checkpoint_missing' | 'checkpoint_unreadable'; reason: string };

/** Reads checkpoint contents from the blob store once each, verified, classifying failures. */
export class SnapshotReader {
  private readonly cache = new Map<string, SnapshotRead>();
  /**
   * Whether a file this process wrote may be known by its stamp instead of read (see `readDisk`):
   * only where the store keeps its contents in local files, readable whenever the work tree is —
   * a failed apply then puts such a file back from the store, with none of its bytes in memory.
   * Over a database server that may be gone at that moment, every file is read.
   */
  readonly knownByStamp: boolean;

  constructor(
    private readonly blobs: BlobStore,
    options: { knownByStamp?: boolean } = {},
  ) {
    this.knownByStamp = options.knownByStamp ?? false;
  }

  async read(hash: string): Promise<SnapshotRead> {
    const cached = this.cache.get(hash);
    if (cached) return cached;
    let result: SnapshotRead;
    try {
      result = { ok: true, content: await this.blobs.get(hash) };
    } catch (error) {
      const failed = classify(hash, error);
      if (!failed) throw error;
      result = failed;
    }
    this.cache.set(hash, result);
    return result;
  }

  /** The bytes of `hash` when a read or prefetch has them already; else null. */
  cached(hash: string): Buffer | null {
    const read = this.cache.get(hash);
    return read?.ok ? read.content : null;
  }

  /**
   * Which of `hashes` can be read without reading them: those already read, and those the blob
   * store indexes (their bytes are verified only when read).
   */
  async present(hashes: Iterable<string>): Promise<Set<string>> {
    const unique = [...new Set(hashes)];
    const present = new Set(unique.filter((hash) => this.cache.get(hash)?.ok === true));
    for (const hash of await this.blobs.hasMany(unique.filter((hash) => !this.cache.has(hash)))) present.add(hash);
    return present;
  }

  /**
   * Reads the snapshots a caller is about to ask for in one batch (the versions of a file share
   * one delta chain: decoded once, not once per version); `read` then answers from memory. A failure that
   * `read` does not classify is not kept: `read` meets it again, and raises it, only if it asks
   * for that hash.
   */
  async prefetch(hashes: Iterable<string>): Promise<void> {
    const wanted = [...new Set(hashes)].filter((hash) => !this.cache.has(hash));
    if (wanted.length === 0) return;
    for (const [hash, outcome] of await this.blobs.getManySettled(wanted, { readOnly: true })) {
      const result = outcome.status === 'fulfilled' ? { ok: true as const, content: outcome.value } : classify(hash, outcome.reason);
      if (result) this.cache.set(hash, result);
    }
  }
}

function classify(hash: string, error: unknown): SnapshotRead | null {
  if (error instanceof BlobCorruptError) return { ok: false, status: 'checkpoint_unreadable', reason: `its saved content ${short(hash)} is corrupt` };
  if (WaypointError.is(error, 'BLOB_NOT_FOUND'))
    return { ok: false, status: 'checkpoint_missing', reason: `its saved content ${short(hash)} is no longer in the blob store` };
  return null;
}

export function short(hash: string | null): string {
  return hash === null ? 'absent' : hash.slice(0, 12);
}
