import type { BlobRecord } from '../model/index.js';
import type { Store } from '../store/store.js';
import { GC_RECOMPRESS } from './blob-codec.js';
import { canStage, type CompressReport } from './deferred-compression.js';

export interface GcOptions {
  /** Report what would be freed without deleting anything (and compress nothing). */
  dryRun?: boolean;
  /**
   * Compress blobs that were stored raw first (see `BlobStore.compress`) after the sweep: true
   * (default) for all of them, false to skip, or a budget for one bounded pass.
   */
  compress?: boolean | { budgetMs?: number; maxBytes?: number };
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
  /** What the compress pass after the sweep did (absent on a dry run, when skipped, or when the backend has nothing to compress). */
  compressed?: CompressReport;
}

/**
 * Mark-and-sweep over the blob storage, then a compress pass over blobs stored raw first (unless
 * `compress: false`). Roots are `store.blobRoots()`; marking follows delta bases transitively, so a
 * live blob never loses its chain. Records are listed *before* the roots are read, so a blob stored
 * during the mark is not even a candidate.
 *
 * Safe beside writers in any process: the sweep (`store.sweepBlobs`) deletes a candidate only if,
 * in the same write transaction, no record, no write in flight and no kept delta chain refers to
 * it. Writers pin what they store before storing it (a write intent: `BlobStore.pin`, the tool and
 * fs writes, the exec capture) and release it in the transaction that writes the referencing row,
 * so a blob between being stored and being referenced is never swept, and content that was
 * unreachable but is being captured anew is either spared or stored again. A backend without
 * `sweepBlobs` falls back to a plain delete (not safe beside writers).
 *
 * @example
 * const report = await collectGarbage(store, { dryRun: true });
 * console.log(`${report.unreachable.length} blobs, ${report.freedBytes} bytes would be freed`);
 */
export async function collectGarbage(
  store: Pick<Store, 'blobs' | 'blobRoots'> & Partial<Pick<Store, 'sweepBlobs'>>,
  options: GcOptions = {},
): Promise<GcReport> {
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

  let unreachable = [...records.keys()].filter((hash) => !live.has(hash));
  let freedBytes = unreachable.reduce((sum, hash) => sum + records.get(hash)!.storedSize, 0);
  let spared = 0;
  if (!dryRun && store.sweepBlobs) {
    const swept = await store.sweepBlobs(unreachable);
    // Referenced again since the mark (a writer captured the same content anew): kept, and live.
    spared = swept.spared.length;
    const deleted = new Set(swept.deleted);
    unreachable = unreachable.filter((hash) => deleted.has(hash));
    freedBytes = swept.freedBytes;
  } else if (!dryRun) {
    freedBytes = (await store.blobs.deleteMany(unreachable)).freedBytes;
  }
  const report: GcReport = { dryRun, scanned: records.size, live: live.size + spared, unreachable, freedBytes, missingBases, missingRoots };
  const compress = options.compress ?? true;
  const storage = store.blobs;
  if (!dryRun && compress !== false && canStage(storage)) {
    // After the sweep, so blobs just deleted are not compressed (or re-encoded) for nothing.
    const budget = compress === true ? {} : compress;
    report.compressed = await storage.recompress({ ...GC_RECOMPRESS, ...budget });
  }
  return report;
}
