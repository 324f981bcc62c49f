import { EMPTY_RECOMPRESS_REPORT, type BlobStorage, type RecompressReport, type StagingBlobStorage } from '../store/store.js';

/** What one compress pass did (`BlobStore.compress`): the backend's recompress report. */
export type CompressReport = RecompressReport;

export const EMPTY_COMPRESS_REPORT: Readonly<CompressReport> = EMPTY_RECOMPRESS_REPORT;

/** Whether a backend's blob storage can stage raw blobs (see `StagingBlobStorage`). */
export function canStage(storage: BlobStorage): storage is BlobStorage & StagingBlobStorage {
  const candidate = storage as BlobStorage & Partial<StagingBlobStorage>;
  return typeof candidate.openStagedBatch === 'function' && typeof candidate.recompress === 'function' && typeof candidate.stagedBacklog === 'function';
}
