/**
 * DDL of the SQLite backend's blob index. The store's migration 1 executes it verbatim inside its
 * transaction (no PRAGMAs here). Blob bytes are not in the database: they live in append-only pack
 * files beside it, and these tables say where.
 *
 * - `blob_packs`: one row per pack file, registered *before* the file is created, so every pack
 *   file on disk has a row (files without one are leftovers of an interrupted unlink). `pid` is the
 *   writing process; `state` is `open` while that process may still append, `sealed` afterwards.
 * - `blob_index`: one row per stored blob: content hash → pack, offset, length of the encoded
 *   bytes, plus the encoding facts of `BlobRecord`. A row is inserted only after its bytes were
 *   fsynced, so every row refers to durable bytes.
 */
export const BLOB_SCHEMA_SQL = `
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
