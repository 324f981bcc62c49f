/**
 * DDL of the SQLite backend's blob index, as migration 8 leaves it (the layout a new database
 * gets). Blob bytes are not in the database: they live in append-only pack files beside it, and
 * these tables say where.
 *
 * - `blob_packs`: one row per pack file, registered *before* the file is created, so every pack
 *   file on disk has a row (files without one are leftovers of an interrupted unlink). `id` is what
 *   index rows name; `pid` is the writing process; `state` is `open` while that process may still
 *   append, `sealed` afterwards.
 * - `blob_bases`: the hashes (32 bytes) that delta rows are deltas of, each once, under a small
 *   id. Thousands of small files share a few dictionaries: a row names its base by this id (a byte
 *   or two) instead of the base's 32 bytes. A base no row names any more is deleted with the rows.
 * - `blob_index`: one row per stored blob: content hash (its 32 bytes; hex at the interface) →
 *   pack id, offset, length of the encoded bytes, plus the encoding facts of `BlobRecord`: the
 *   encoding as a number (`ENCODING_CODES` in `blob-index-rows.ts`: 0 and 1 take no bytes in a row), the base's id, and
 *   the creation time in whole seconds, rounded up. A row is inserted only after its bytes were
 *   fsynced, so every row refers to durable bytes.
 */
export const BLOB_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS blob_packs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  pid INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'sealed')),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS blob_bases (
  id INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32)
) STRICT;

CREATE TABLE IF NOT EXISTS blob_index (
  hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
  pack INTEGER NOT NULL,
  pack_offset INTEGER NOT NULL CHECK (pack_offset >= 0),
  stored_size INTEGER NOT NULL CHECK (stored_size >= 0),
  size INTEGER NOT NULL CHECK (size >= 0),
  encoding INTEGER NOT NULL CHECK (encoding IN (0, 1, 2)),
  base INTEGER,
  chain_depth INTEGER NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
  created_sec INTEGER NOT NULL,
  CHECK ((encoding = 1) = (base IS NOT NULL))
) STRICT, WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS blob_index_raw ON blob_index(pack) WHERE encoding = 0;
`;

/**
 * Migration 8's part for the blob tables: `blob_index` rebuilt with the encoding as a number, the
 * delta base as an id into `blob_bases` (filled with every distinct base) and the time in seconds.
 * The copy is checked row for row: a base that found no id or an unknown encoding fails a
 * constraint, so the migration aborts and the database stays as it was.
 */
export const BLOB_SCHEMA_V8_MIGRATION_SQL = `
CREATE TABLE blob_bases (
  id INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32)
) STRICT;
INSERT INTO blob_bases (hash) SELECT DISTINCT base_hash FROM blob_index WHERE base_hash IS NOT NULL ORDER BY base_hash;
CREATE TABLE blob_index_v8 (
  hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
  pack INTEGER NOT NULL,
  pack_offset INTEGER NOT NULL CHECK (pack_offset >= 0),
  stored_size INTEGER NOT NULL CHECK (stored_size >= 0),
  size INTEGER NOT NULL CHECK (size >= 0),
  encoding INTEGER NOT NULL CHECK (encoding IN (0, 1, 2)),
  base INTEGER,
  chain_depth INTEGER NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
  created_sec INTEGER NOT NULL,
  CHECK ((encoding = 1) = (base IS NOT NULL))
) STRICT, WITHOUT ROWID;
INSERT INTO blob_index_v8 (hash, pack, pack_offset, stored_size, size, encoding, base, chain_depth, created_sec)
  SELECT i.hash, i.pack, i.pack_offset, i.stored_size, i.size,
    CASE i.encoding WHEN 'raw' THEN 0 WHEN 'delta' THEN 1 WHEN 'deflate' THEN 2 END,
    b.id, i.chain_depth, (i.created_at + 999) / 1000
  FROM blob_index i LEFT JOIN blob_bases b ON b.hash = i.base_hash;
DROP TABLE blob_index;
ALTER TABLE blob_index_v8 RENAME TO blob_index;
CREATE INDEX blob_index_raw ON blob_index(pack) WHERE encoding = 0;
`;

/**
 * Migration 6's part for the blob tables (the layout before migration 8: encodings as text, bases as 32 bytes): the index of every row by pack (a hash in each entry,
 * about as large as the table's own rows) and the index of delta bases go. Only the compress pass
 * looks rows up by pack often, and the rows it moves (staged blobs) are raw, so a partial index of
 * raw rows serves it; compaction and GC's sweep read the whole table, as GC's mark already does.
 */
export const BLOB_SCHEMA_V6_MIGRATION_SQL = `
DROP INDEX blob_index_pack;
DROP INDEX blob_index_base;
CREATE INDEX blob_index_raw ON blob_index(pack) WHERE encoding = 'raw';
`;

/** Reads `blob_index` rows with their pack's name and base's hash (`i` the index, `p` the pack, `b` the base); add a WHERE or ORDER BY. */
export const INDEX_ROW_SELECT =
  'SELECT i.hash, p.name AS pack, i.pack_offset, i.stored_size, i.size, i.encoding, b.hash AS base_hash, i.chain_depth, i.created_sec FROM blob_index i JOIN blob_packs p ON p.id = i.pack LEFT JOIN blob_bases b ON b.id = i.base';

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
