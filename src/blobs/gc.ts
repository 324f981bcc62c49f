import type { BlobRecord } from '../model/index.js';
import type { Store } from '../store/store.js';

export interface GcOptions {
  /** Report what would be freed without deleting anything. */
  dryRun?: boolean;
}

/** What a garbage collection found (and, unless `dryRun`, freed). */
export interface GcReport {
  dryRun: boolean;
  /** Blobs in storage when the collection started. */
  scanned: number;
  /** Blobs kept: reachable from a root, directly or as a delta base of a kept blob. */
  live: number;
  /** Hashes of the blobs nothing reaches (deleted unless `dryRun`). */
  unreachable: string[];
  /** Stored bytes freed (or that a real run would free). */
  freedBytes: number;
  /** Kept delta blobs whose base is gone: they cannot be read; a person should know. */
  missingBases: Array<{ hash: string; baseHash: string }>;
  /** Hashes the store's records refer to that are not in storage. */
  missingRoots: string[];
}

/**
 * Mark-and-sweep over the blob storage. Roots are `store.blobRoots()`; marking follows delta
 * bases transitively, so a live blob never loses its chain. Records are listed *before* the roots
 * are read, so a blob stored and referenced during the collection is never swept. Still, run it
 * while no session is writing: a blob that was unreachable and becomes referenced again during the
 * run (the same content captured anew) can be swept.
 *
 * @example
 * const report = await collectGarbage(store, { dryRun: true });
 * console.log(`${report.unreachable.length} blobs, ${report.freedBytes} bytes would be freed`);
 */
export async function collectGarbage(store: Pick<Store, 'blobs' | 'blobRoots'>, options: GcOptions = {}): Promise<GcReport> {
  const dryRun = options.dryRun ?? false;
  const records = new Map<string, BlobRecord>((await store.blobs.listRecords()).map((record) => [record.hash, record]));
  const roots = await store.blobRoots();

  const live = new Set<string>();
  const missingBases: GcReport['missingBases'] = [];
  const missingRoots: string[] = [];
  const stack: string[] = [];
  for (const root of roots) {
    if (records.has(root)) stack.push(root);
    else missingRoots.push(root);
  }
  while (stack.length > 0) {
    const hash = stack.pop()!;
    if (live.has(hash)) continue;
    live.add(hash);
    const baseHash = records.get(hash)!.baseHash;
    if (baseHash === null) continue;
    if (records.has(baseHash)) stack.push(baseHash);
    else missingBases.push({ hash, baseHash });
  }

  const unreachable = [...records.keys()].filter((hash) => !live.has(hash));
  let freedBytes = unreachable.reduce((sum, hash) => sum + records.get(hash)!.storedSize, 0);
  if (!dryRun) freedBytes = (await store.blobs.deleteMany(unreachable)).freedBytes;
  return { dryRun, scanned: records.size, live: live.size, unreachable, freedBytes, missingBases, missingRoots };
}
