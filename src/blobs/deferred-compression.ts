import type { BlobStorage, RecompressReport, StagingBlobStorage } from '../store/store.js';

/** What one compress pass did (`BlobStore.compress`): the backend's recompress report. */
export type CompressReport = RecompressReport;

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
