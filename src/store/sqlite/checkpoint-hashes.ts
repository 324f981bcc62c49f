import type { CheckpointRow } from './rows.js';

/**
 * Checkpoint rows keep a before or after hash that is a sha256 in lowercase hex as its 32 bytes
 * (a BLOB in the same untyped column); anything else (never written by Waypoint, but accepted by
 * the interface) stays the text it was. Hex only at the interface: rows are converted on the way
 * in and out, and GC's roots query turns the bytes back into hex in SQL (`CHECKPOINT_HASH_HEX`).
 */
export interface StoredCheckpointRow extends Omit<CheckpointRow, 'before_hash' | 'after_hash'> {
  before_hash: string | Buffer | null;
  after_hash: string | Buffer | null;
}

const HASH_PATTERN = /^[0-9a-f]{64}$/;

function storedHash(hash: string | null): string | Buffer | null {
  return hash !== null && HASH_PATTERN.test(hash) ? Buffer.from(hash, 'hex') : hash;
}

function hexHash(stored: string | Buffer | null): string | null {
  return stored === null || typeof stored === 'string' ? stored : stored.toString('hex');
}

/** The row as the SQLite store writes it. */
export function toStoredCheckpointRow(row: CheckpointRow): StoredCheckpointRow {
  return { ...row, before_hash: storedHash(row.before_hash), after_hash: storedHash(row.after_hash) };
}

/** The row as the interface knows it (hashes in hex). */
export function fromStoredCheckpointRow(row: StoredCheckpointRow): CheckpointRow {
  return { ...row, before_hash: hexHash(row.before_hash), after_hash: hexHash(row.after_hash) };
}

/** SQL of a checkpoint hash column in hex, whichever way it is stored. */
export function checkpointHashHex(column: string): string {
  return `CASE typeof(${column}) WHEN 'blob' THEN lower(hex(${column})) ELSE ${column} END`;
}

/**
 * Migration 8's part for checkpoints: every hash that is 64 lowercase hex digits becomes its 32
 * bytes. Checkpoints refuse updates (a trigger), so the trigger is dropped for the rewrite and
 * created again exactly as migration 1 made it.
 */
export const CHECKPOINT_HASHES_V8_MIGRATION_SQL = `
DROP TRIGGER checkpoints_append_only;
UPDATE checkpoints SET
  before_hash = CASE WHEN ${hexCondition('before_hash')} THEN unhex(before_hash) ELSE before_hash END,
  after_hash = CASE WHEN ${hexCondition('after_hash')} THEN unhex(after_hash) ELSE after_hash END
WHERE ${hexCondition('before_hash')} OR ${hexCondition('after_hash')};
CREATE TRIGGER checkpoints_append_only BEFORE UPDATE ON checkpoints
BEGIN SELECT RAISE(ABORT, 'waypoint: checkpoints are append-only'); END;
`;

function hexCondition(column: string): string {
  return `(typeof(${column}) = 'text' AND length(${column}) = 64 AND ${column} NOT GLOB '*[^0-9a-f]*')`;
}
