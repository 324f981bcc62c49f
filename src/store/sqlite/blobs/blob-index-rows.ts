import type Database from 'better-sqlite3';
import { BlobCorruptError, type BlobEncoding, type BlobRecord } from '../../../model/index.js';

/** `blob_index.encoding` of each encoding (raw and delta, the common ones, take no bytes in a row). */
export const ENCODING_CODES: Readonly<Record<BlobEncoding, number>> = { raw: 0, delta: 1, deflate: 2 };
const ENCODINGS: readonly BlobEncoding[] = ['raw', 'delta', 'deflate'];

/** `blob_index.created_sec` of a time in milliseconds: rounded up, so a blob never reads older than it is. */
export function createdSeconds(milliseconds: number): number {
  return Math.ceil(milliseconds / 1000);
}

/** A `blob_index` row as `INDEX_ROW_SELECT` reads it: hashes as their 32 bytes, the pack by name, the base by its hash. */
export interface IndexRow {
  hash: Buffer;
  pack: string;
  pack_offset: number;
  stored_size: number;
  size: number;
  encoding: number;
  base_hash: Buffer | null;
  chain_depth: number;
  created_sec: number;
}

export function toRecord(row: IndexRow): BlobRecord {
  const hash = row.hash.toString('hex');
  const encoding = ENCODINGS[row.encoding];
  if (encoding === undefined) throw new BlobCorruptError({ hash, reason: `its index row has the unknown encoding ${row.encoding}` });
  return {
    hash,
    size: row.size,
    storedSize: row.stored_size,
    encoding,
    baseHash: row.base_hash === null ? null : row.base_hash.toString('hex'),
    chainDepth: row.chain_depth,
    createdAt: row.created_sec * 1000,
  };
}

/** One row for `IndexInsert`: the pack by name, hashes in hex, the time in milliseconds. */
export interface NewIndexRow {
  hash: string;
  pack: string;
  offset: number;
  storedSize: number;
  size: number;
  encoding: BlobEncoding;
  baseHash: string | null;
  chainDepth: number;
  createdAtMs: number;
}

/** Inserts index rows (a hash already indexed keeps its row); returns how many rows were added. Run it inside a write transaction. */
export type IndexInsert = (row: NewIndexRow) => number;

/**
 * The insert of `blob_index` rows, with the delta base's id taken from `blob_bases` (added there
 * first when new). Only a row of the same hash is skipped: any other constraint (a malformed
 * hash, a base without an id) fails the statement instead of dropping the row unseen.
 */
export function prepareIndexInsert(db: Database.Database): IndexInsert {
  const insertBase = db.prepare('INSERT INTO blob_bases (hash) VALUES (unhex(?)) ON CONFLICT (hash) DO NOTHING');
  const insert = db.prepare(
    `INSERT INTO blob_index (hash, pack, pack_offset, stored_size, size, encoding, base, chain_depth, created_sec)
     VALUES (unhex(?), (SELECT id FROM blob_packs WHERE name = ?), ?, ?, ?, ?, (SELECT id FROM blob_bases WHERE hash = unhex(?)), ?, ?)
     ON CONFLICT (hash) DO NOTHING`,
  );
  return (row) => {
    if (row.baseHash !== null) insertBase.run(row.baseHash);
    return insert.run(
      row.hash,
      row.pack,
      row.offset,
      row.storedSize,
      row.size,
      ENCODING_CODES[row.encoding],
      row.baseHash,
      row.chainDepth,
      createdSeconds(row.createdAtMs),
    ).changes;
  };
}

/** Deletes the `blob_bases` entries no index row names any more (inside the caller's write transaction). */
export function deleteUnusedBases(db: Database.Database): void {
  db.prepare('DELETE FROM blob_bases WHERE id NOT IN (SELECT base FROM blob_index WHERE base IS NOT NULL)').run();
}
