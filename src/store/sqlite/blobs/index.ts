export { BLOB_SCHEMA_SQL } from './blob-schema.js';
export { PackBlobStorage, type PackBlobStorageOptions } from './pack-blob-storage.js';
export { type CompactOptions, type CompactResult } from './pack-compactor.js';
