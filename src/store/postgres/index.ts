export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { PG_SCHEMA_VERSION } from './pg-schema.js';
export { isPostgresUrl, isStoreUrl, parsePostgresUrl, redactStoreUrl, type PostgresLocation } from './pg-url.js';
