/**
 * Waypoint: checkpoints, rewind and fork for AI agent sessions. The engine as a library; the
 * `waypoint` command is a thin shell over it.
 */
export * from './model/index.js';
export * from './store/index.js';
export * from './history/index.js';
export { BlobStore, DEFAULT_MAX_CHAIN_DEPTH, collectGarbage, type BlobInput, type BlobStoreBackend, type BlobStoreOptions, type PutBlobOptions, type GcOptions, type GcReport } from './blobs/index.js';
export * from './workspace/index.js';
