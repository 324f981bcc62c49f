import type { BlobStore } from '../../blobs/index.js';
import { BlobCorruptError, WaypointError } from '../../model/index.js';

/** A snapshot read: its bytes, or why they cannot be had. */
export type SnapshotRead =
  | { ok: true; content: Buffer }
  | { ok: false; status: 'checkpoint_missing' | 'checkpoint_unreadable'; reason: string };

/** Reads checkpoint contents from the blob store once each, verified, classifying failures. */
export class SnapshotReader {
  private readonly cache = new Map<string, SnapshotRead>();

  constructor(private readonly blobs: BlobStore) {}

  async read(hash: string): Promise<SnapshotRead> {
    const cached = this.cache.get(hash);
    if (cached) return cached;
    let result: SnapshotRead;
    try {
      result = { ok: true, content: await this.blobs.get(hash) };
    } catch (error) {
      if (error instanceof BlobCorruptError) result = { ok: false, status: 'checkpoint_unreadable', reason: `its saved content ${short(hash)} is corrupt` };
      else if (WaypointError.is(error, 'BLOB_NOT_FOUND')) result = { ok: false, status: 'checkpoint_missing', reason: `its saved content ${short(hash)} is no longer in the blob store` };
      else throw error;
    }
    this.cache.set(hash, result);
    return result;
  }
}

export function short(hash: string | null): string {
  return hash === null ? 'absent' : hash.slice(0, 12);
}
