export {
  BLOB_SCHEMA_SQL,
  BLOB_SCHEMA_V1_SQL,
  BLOB_SCHEMA_V5_MIGRATION_SQL,
  BLOB_SCHEMA_V6_MIGRATION_SQL,
  BLOB_SCHEMA_V8_MIGRATION_SQL,
} from './blob-schema.js';
export { PackBlobStorage, type PackBlobStorageOptions, type PackPutOptions } from './pack-blob-storage.js';
export type { CompactOptions, CompactResult } from './pack-compactor.js';
export type { PackStagedBatch } from './pack-staged-batch.js';
