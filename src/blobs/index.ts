export {
  BlobStore,
  DEFAULT_MAX_CHAIN_DEPTH,
  DEFERRED_BATCH_BYTES,
  type BlobCompression,
  type BlobInput,
  type BlobStoreBackend,
  type BlobStoreOptions,
  type CompressOptions,
  type DeferredBlobBatch,
  type PendingBlobPut,
  type PutBlobOptions,
  type PutManyOptions,
} from './blob-store.js';
export { canStage, type CompressReport } from './deferred-compression.js';
export { collectGarbage, type GcOptions, type GcReport } from './gc.js';
export { encodeDelta, decodeDelta } from './delta-codec.js';
export { pinBlobs, type BlobPin, type BlobPinBackend } from './blob-pin.js';
