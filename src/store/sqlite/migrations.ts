import type Database from 'better-sqlite3';
import { CHECKPOINT_HASHES_V8_MIGRATION_SQL } from './checkpoint-hashes.js';
import { ID_KEYS_V9_MIGRATION_SQL } from './id-keys.js';
import { packJson } from './packed-json.js';
import { splitPinSets } from './pin-sets.js';
import { SCHEMA_V1_SQL } from './schema-v1.js';
import { WRITE_INTENTS_EXEC_SQL, WRITE_INTENTS_SQL } from './write-intents.js';

export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

/**
 * Ordered schema migrations. Each runs inside the opening transaction; `PRAGMA user_version`
 * records the last one applied. Never edit a shipped migration: add the next one.
 */
export function migrations(blobSchemaSql: string, blobSchemaV5Sql: string, blobSchemaV6Sql: string, blobSchemaV8Sql: string): Migration[] {
  return [
    {
      version: 1,
      description: 'sessions, message tree, parts, entries, turns, checkpoints, journals, effects, command facts, blobs',
      up(db) {
        db.exec(SCHEMA_V1_SQL);
        db.exec(blobSchemaSql);
      },
    },
    {
      version: 2,
      description: 'write intents: blobs pinned by writes in flight, pending checkpoints of tool and fs writes',
      up(db) {
        db.exec(WRITE_INTENTS_SQL);
      },
    },
    {
      version: 3,
      description: 'workspace locks: file rewinds of one workspace serialize across processes',
      up(db) {
        db.exec(WORKSPACE_LOCKS_SQL);
      },
    },
    {
      version: 4,
      description: 'exec captures in flight: a write intent can stand for a shell command being captured',
      up(db) {
        db.exec(WRITE_INTENTS_EXEC_SQL);
      },
    },
    {
      version: 5,
      description: 'compact blob rows: hashes as 32 bytes, pack ids instead of names, one row per pin set',
      up(db) {
        db.exec(blobSchemaV5Sql);
        db.exec(PIN_SETS_SQL);
        // Nothing looks a checkpoint up by hash: GC's roots read every row anyway.
        db.exec('DROP INDEX IF EXISTS checkpoints_before; DROP INDEX IF EXISTS checkpoints_after;');
      },
    },
    {
      version: 6,
      description: 'smaller blob indexes: no index of every row by pack or by delta base, a partial one of raw rows by pack',
      up(db) {
        db.exec(blobSchemaV6Sql);
      },
    },
    {
      version: 7,
      description: 'deflated turn metadata, and numbered delta blobs (skip-delta bases) that older versions cannot read',
      up(db) {
        packTurnMetadata(db);
      },
    },
    {
      version: 8,
      description:
        'smaller rows: blob encodings as numbers, delta bases by id, times in seconds; checkpoint hashes as 32 bytes; pins of indexed blobs as prefixes',
      up(db) {
        db.exec(blobSchemaV8Sql);
        db.exec(CHECKPOINT_HASHES_V8_MIGRATION_SQL);
        splitPinSets(db);
      },
    },
    {
      version: 9,
      description:
        "narrow indexes of messages by tree and session (the ids' last characters); no index of checkpoints by turn or anchor or of messages by turn (no query used them)",
      up(db) {
        db.exec(ID_KEYS_V9_MIGRATION_SQL);
      },
    },
  ];
}

/**
 * Turn metadata rewritten as `packJson` stores it (deflated where that is a quarter smaller). The
 * blob side needs no conversion: deltas written before keep their flags and read as before; the
 * version number marks the store so that an older Waypoint, which cannot read the numbered deltas
 * written from now on, refuses it (`STORE_SCHEMA_TOO_NEW`) instead of failing on a blob.
 */
function packTurnMetadata(db: Database.Database): void {
  const update = db.prepare('UPDATE turns SET metadata = ? WHERE id = ?');
  const rows = db.prepare("SELECT id, metadata FROM turns WHERE typeof(metadata) = 'text' AND length(metadata) >= 128").all() as Array<{
    id: string;
    metadata: string;
  }>;
  for (const row of rows) {
    const packed = packJson(row.metadata);
    if (packed !== row.metadata) update.run(packed, row.id);
  }
}

/**
 * Pins as one row per owner: its hashes' bytes end to end (`setBlobPins` keeps them distinct). A
 * hash that is not 64 hex digits fails the copy (NOT NULL), so the migration aborts unchanged.
 */
const PIN_SETS_SQL = `
CREATE TABLE blob_pin_sets (
  owner TEXT PRIMARY KEY,
  hashes BLOB NOT NULL
) STRICT;
INSERT INTO blob_pin_sets (owner, hashes) SELECT owner, unhex(group_concat(hash, '')) FROM blob_pins GROUP BY owner;
DROP TABLE blob_pins;
ALTER TABLE blob_pin_sets RENAME TO blob_pins;
`;

/**
 * One row per locked directory (a workspace root's real path). `pid` and `host` let a later
 * process tell a holder that died (SIGKILL …) from a live one and take its lock over.
 */
const WORKSPACE_LOCKS_SQL = `
CREATE TABLE IF NOT EXISTS workspace_locks (
  path TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  purpose TEXT NOT NULL,
  acquired_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS workspace_locks_owner ON workspace_locks(owner);
`;
