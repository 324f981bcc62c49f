/**
 * DDL of the SQLite backend's blob index, as migration 6 leaves it (the layout a new database
 * gets). Blob bytes are not in the database: they live in append-only pack files beside it, and
 * these tables say where.
 *
 * - `blob_packs`: one row per pack file, registered *before* the file is created, so every pack
 *   file on disk has a row (files without one are leftovers of an interrupted unlink). `id` is what
 *   index rows name; `pid` is the writing process; `state` is `open` while that process may still
 *   append, `sealed` afterwards.
 * - `blob_index`: one row per stored blob: content hash (its 32 bytes; hex at the interface) →
 *   pack id, offset, length of the encoded bytes, plus the encoding facts of `BlobRecord`. A row is
 *   inserted only after its bytes were fsynced, so every row refers to durable bytes.
 */
export const BLOB_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS blob_packs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  pid INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'sealed')),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS blob_index (
  hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
  pack INTEGER NOT NULL,
  pack_offset INTEGER NOT NULL CHECK (pack_offset >= 0),
  stored_size INTEGER NOT NULL CHECK (stored_size >= 0),
  size INTEGER NOT NULL CHECK (size >= 0),
  encoding TEXT NOT NULL CHECK (encoding IN ('raw', 'deflate', 'delta')),
  base_hash BLOB,
  chain_depth INTEGER NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
  created_at INTEGER NOT NULL,
  CHECK ((encoding = 'delta') = (base_hash IS NOT NULL))
) STRICT, WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS blob_index_raw ON blob_index(pack) WHERE encoding = 'raw';
`;

/**
 * Migration 6's part for the blob tables: the index of every row by pack (a hash in each entry,
 * about as large as the table's own rows) and the index of delta bases go. Only the compress pass
 * looks rows up by pack often, and the rows it moves (staged blobs) are raw, so a partial index of
 * raw rows serves it; compaction and GC's sweep read the whole table, as GC's mark already does.
 */
export const BLOB_SCHEMA_V6_MIGRATION_SQL = `
DROP INDEX blob_index_pack;
DROP INDEX blob_index_base;
CREATE INDEX blob_index_raw ON blob_index(pack) WHERE encoding = 'raw';
`;

/** Reads `blob_index` rows with their pack's name (`i` is the index, `p` the pack); add a WHERE or ORDER BY. */
export const INDEX_ROW_SELECT =
  'SELECT i.hash, p.name AS pack, i.pack_offset, i.stored_size, i.size, i.encoding, i.base_hash, i.chain_depth, i.created_at FROM blob_index i JOIN blob_packs p ON p.id = i.pack';

/**
 * Migration 5's part for the blob tables: the version 1 tables (hex text hashes, a pack name in
 * every row and in its index) copied into the `BLOB_SCHEMA_SQL` layout. A hash that is not 64 hex
 * digits fails the copy (NOT NULL), so the migration aborts and the database stays as it was.
 */
export const BLOB_SCHEMA_V5_MIGRATION_SQL = `
CREATE TABLE blob_packs_v5 (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  pid INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'sealed')),
  created_at INTEGER NOT NULL
) STRICT;
INSERT INTO blob_packs_v5 (name, pid, state, created_at) SELECT name, pid, state, created_at FROM blob_packs ORDER BY created_at, name;
CREATE TABLE blob_index_v5 (
  hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
  pack INTEGER NOT NULL,
  pack_offset INTEGER NOT NULL CHECK (pack_offset >= 0),
  stored_size INTEGER NOT NULL CHECK (stored_size >= 0),
  size INTEGER NOT NULL CHECK (size >= 0),
  encoding TEXT NOT NULL CHECK (encoding IN ('raw', 'deflate', 'delta')),
  base_hash BLOB,
  chain_depth INTEGER NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
  created_at INTEGER NOT NULL,
  CHECK ((encoding = 'delta') = (base_hash IS NOT NULL))
) STRICT, WITHOUT ROWID;
INSERT INTO blob_index_v5 (hash, pack, pack_offset, stored_size, size, encoding, base_hash, chain_depth, created_at)
  SELECT unhex(i.hash), p.id, i.pack_offset, i.stored_size, i.size, i.encoding, unhex(i.base_hash), i.chain_depth, i.created_at
  FROM blob_index i JOIN blob_packs_v5 p ON p.name = i.pack;
DROP TABLE blob_index;
DROP TABLE blob_packs;
ALTER TABLE blob_packs_v5 RENAME TO blob_packs;
ALTER TABLE blob_index_v5 RENAME TO blob_index;
CREATE INDEX blob_index_pack ON blob_index(pack);
CREATE INDEX blob_index_base ON blob_index(base_hash) WHERE base_hash IS NOT NULL;
`;

/**
 * DDL of the blob index as migration 1 created it (executed verbatim by that migration; never
 * edited): hex text hashes and pack names. Migration 5 converts it to `BLOB_SCHEMA_SQL`.
 */
export const BLOB_SCHEMA_V1_SQL = `
CREATE TABLE IF NOT EXISTS blob_packs (
  name TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'sealed')),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS blob_index (
  hash TEXT PRIMARY KEY,
  pack TEXT NOT NULL REFERENCES blob_packs(name),
  pack_offset INTEGER NOT NULL CHECK (pack_offset >= 0),
  stored_size INTEGER NOT NULL CHECK (stored_size >= 0),
  size INTEGER NOT NULL CHECK (size >= 0),
  encoding TEXT NOT NULL CHECK (encoding IN ('raw', 'deflate', 'delta')),
  base_hash TEXT,
  chain_depth INTEGER NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
  created_at INTEGER NOT NULL,
  CHECK ((encoding = 'delta') = (base_hash IS NOT NULL))
) STRICT, WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS blob_index_pack ON blob_index(pack);
CREATE INDEX IF NOT EXISTS blob_index_base ON blob_index(base_hash) WHERE base_hash IS NOT NULL;
`;
