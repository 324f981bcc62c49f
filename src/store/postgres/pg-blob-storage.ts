import { NotFoundError, type BlobRecord } from '../../model/index.js';
import type { BlobStorage, BlobStorageStats, StoredBlobInput } from '../blob-storage.js';
import type { PgContext } from './pg-context.js';

/** Stored bytes are split into rows of at most this size (PostgreSQL moves each out of line on its own). */
export const BLOB_CHUNK_BYTES = 1024 * 1024;
/** Blobs stored per transaction at most, so one batch never holds a huge transaction open. */
const BATCH_BYTES = 32 * 1024 * 1024;

interface BlobRow {
  hash: string;
  size: number;
  stored_size: number;
  encoding: BlobRecord['encoding'];
  base_hash: string | null;
  chain_depth: number;
  created_at: number;
}

function toRecord(row: BlobRow): BlobRecord {
  return {
    hash: row.hash,
    size: row.size,
    storedSize: row.stored_size,
    encoding: row.encoding,
    baseHash: row.base_hash,
    chainDepth: row.chain_depth,
    createdAt: row.created_at,
  };
}

/**
 * Blobs in the database itself (no shared filesystem between machines): one `blobs` row per blob
 * and its stored bytes in `blob_chunks` rows of at most 1 MiB, written in the same transaction, so
 * a row is never readable without its bytes. Concurrent writers of one hash: the second waits on
 * the first's row and then skips it.
 */
export class PgBlobStorage implements BlobStorage {
  constructor(private readonly context: PgContext) {}

  async putMany(items: StoredBlobInput[]): Promise<void> {
    const unique = new Map<string, StoredBlobInput>();
    for (const item of items) if (!unique.has(item.record.hash)) unique.set(item.record.hash, item);
    let batch: StoredBlobInput[] = [];
    let bytes = 0;
    for (const item of unique.values()) {
      batch.push(item);
      bytes += item.bytes.length;
      if (bytes >= BATCH_BYTES) {
        await this.putBatch(batch);
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) await this.putBatch(batch);
  }

  private async putBatch(items: StoredBlobInput[]): Promise<void> {
    const now = Date.now();
    await this.context.write('store blobs', async (sql) => {
      const { rows } = await sql.query<{ hash: string }>(
        `INSERT INTO blobs (hash, size, stored_size, encoding, base_hash, chain_depth, created_at)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::int[], $7::bigint[])
         ON CONFLICT (hash) DO NOTHING RETURNING hash`,
        [
          items.map((item) => item.record.hash),
          items.map((item) => item.record.size),
          items.map((item) => item.record.storedSize),
          items.map((item) => item.record.encoding),
          items.map((item) => item.record.baseHash),
          items.map((item) => item.record.chainDepth),
          items.map(() => now),
        ],
      );
      const inserted = new Set(rows.map((row) => row.hash));
      for (const item of items) {
        if (!inserted.has(item.record.hash)) continue;
        const count = Math.max(1, Math.ceil(item.bytes.length / BLOB_CHUNK_BYTES));
        for (let index = 0; index < count; index++) {
          const chunk = item.bytes.subarray(index * BLOB_CHUNK_BYTES, (index + 1) * BLOB_CHUNK_BYTES);
          await sql.query('INSERT INTO blob_chunks (hash, idx, data) VALUES ($1, $2, $3)', [item.record.hash, index, chunk]);
        }
      }
    });
  }

  async getRecord(hash: string): Promise<BlobRecord | null> {
    const [row] = await this.context.query<BlobRow>('read a blob record', 'SELECT * FROM blobs WHERE hash = $1', [hash]);
    return row ? toRecord(row) : null;
  }

  async getRecords(hashes: readonly string[]): Promise<Map<string, BlobRecord>> {
    if (hashes.length === 0) return new Map();
    const rows = await this.context.query<BlobRow>('read blob records', 'SELECT * FROM blobs WHERE hash = ANY($1::text[])', [[...hashes]]);
    return new Map(rows.map((row) => [row.hash, toRecord(row)]));
  }

  async readStored(hash: string): Promise<Buffer> {
    return this.context.read('read a blob', async (sql) => {
      const { rows } = await sql.query<{ stored_size: number }>('SELECT stored_size FROM blobs WHERE hash = $1', [hash]);
      if (rows.length === 0) throw new NotFoundError({ entity: 'blob', id: hash });
      const chunks = await sql.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE hash = $1 ORDER BY idx', [hash]);
      return chunks.rows.length === 1 ? chunks.rows[0]!.data : Buffer.concat(chunks.rows.map((row) => row.data));
    });
  }

  async has(hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows = await this.context.query<{ hash: string }>('look up blobs', 'SELECT hash FROM blobs WHERE hash = ANY($1::text[])', [[...hashes]]);
    return new Set(rows.map((row) => row.hash));
  }

  async listRecords(): Promise<BlobRecord[]> {
    return (await this.context.query<BlobRow>('list blobs', 'SELECT * FROM blobs ORDER BY created_at, hash COLLATE "C"')).map(toRecord);
  }

  async deleteMany(hashes: readonly string[]): Promise<{ freedBytes: number }> {
    if (hashes.length === 0) return { freedBytes: 0 };
    return this.context.write('delete blobs', async (sql) => {
      const { rows } = await sql.query<{ freed: number }>(
        'WITH gone AS (DELETE FROM blobs WHERE hash = ANY($1::text[]) RETURNING stored_size) SELECT COALESCE(SUM(stored_size), 0)::bigint AS freed FROM gone',
        [[...hashes]],
      );
      return { freedBytes: rows[0]!.freed };
    });
  }

  async stats(): Promise<BlobStorageStats> {
    const [row] = await this.context.query<{ count: number; raw: number; stored: number; footprint: number }>(
      'read blob statistics',
      `SELECT count(*)::bigint AS count, COALESCE(SUM(size), 0)::bigint AS raw, COALESCE(SUM(stored_size), 0)::bigint AS stored,
        (pg_total_relation_size('blobs') + pg_total_relation_size('blob_chunks'))::bigint AS footprint FROM blobs`,
    );
    return { blobCount: row!.count, rawBytes: row!.raw, storedBytes: row!.stored, footprintBytes: row!.footprint };
  }
}
