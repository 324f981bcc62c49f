export { BlobStore, DEFAULT_MAX_CHAIN_DEPTH, type BlobInput, type BlobStoreBackend, type BlobStoreOptions, type PutBlobOptions } from './blob-store.js';

export { collectGarbage, type GcOptions, type GcReport } from './gc.js';
export { encodeDelta, decodeDelta } from './delta-codec.js';
