import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, collectGarbage } from '../../src/blobs/index.js';
import { BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL } from '../../src/store/sqlite/blobs/index.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { SQLITE_SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { writeOldLayoutBlobs } from './fixtures/pre-v8-blobs.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const digest = (path: string) => sha(readFileSync(path));

/** Forty small similar files (staged raw, for the compress pass) and a file with an edited version stored as a delta. */
const files = Array.from({ length: 40 }, (_, index) => Buffer.from(`export const value${index} = ${index * 7};\n`.repeat(20 + index)));
const text = Buffer.from('line one\nline two\nline three\n'.repeat(40));
const edited = Buffer.from(`${text.toString()}line four\n`);

/**
 * A store at schema version 5: migrations 1–5 of this code, blobs as the pack storage of that
 * version wrote them (a deflated blob, a delta on it, staged raw blobs; by hand, since this
 * code's pack storage writes the layout of migration 8), a checkpoint naming the pair and a pin
 * set naming one staged blob.
 */
async function writeVersion5Store(path: string, tamper?: (db: Database.Database) => void): Promise<void> {
  const db = openDatabase({
    path,
    readOnly: false,
    busyTimeoutMs: 5000,
    migrations: migrations(BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, '', '').slice(0, 5),
  });
  writeOldLayoutBlobs(db, `${path}.blobs`, [{ content: text }, { content: edited, base: text }, ...files.map((content) => ({ content, staged: true }))]);
  const now = Date.now();
  db.prepare(
    `INSERT INTO sessions (id, kind, tree_id, root_session_id, title, created_at, updated_at) VALUES ('ses_1', 'main', 'tree_1', 'ses_1', 't', ?, ?)`,
  ).run(now, now);
  db.prepare(
    `INSERT INTO checkpoints (id, session_id, seq, op, path, before_hash, after_hash, source, status, created_at)
     VALUES ('chk_1', 'ses_1', 1, 'modify', 'workspace:a.txt', ?, ?, 'fs', 'recorded', ?)`,
  ).run(sha(text), sha(edited), now);
  db.prepare('INSERT INTO blob_pins (owner, hashes) VALUES (?, unhex(?))').run('session:ses_1:exec-files', sha(files[0]!));
  tamper?.(db);
  db.close();
}

describe('migration 6: smaller blob indexes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-migration6-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('converts a version 5 store in place: every blob reads back verified, the staged ones compress, GC keeps what is named', async () => {
    const path = join(dir, 'w.db');
    await writeVersion5Store(path);
    const before = new Database(path, { readonly: true });
    expect(before.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'blob_index_%' ORDER BY name").pluck().all()).toEqual([
      'blob_index_base',
      'blob_index_pack',
    ]);
    before.close();

    const store = await SqliteStore.open({ path });
    try {
      const blobs = new BlobStore(store);
      const all = [text, edited, ...files];
      for (const content of all) expect((await blobs.get(sha(content))).equals(content)).toBe(true);
      expect(await store.blobs.getRecord(sha(edited))).toMatchObject({ encoding: 'delta', baseHash: sha(text) });
      // The staged blobs are found through the new partial index and compressed; every one still reads back.
      expect(await blobs.compressionBacklog()).toEqual({ blobs: files.length, bytes: files.reduce((sum, content) => sum + content.length, 0) });
      const compressed = await blobs.compress();
      expect(compressed.blobsMoved).toBe(files.length);
      expect(await blobs.compressionBacklog()).toEqual({ blobs: 0, bytes: 0 });
      for (const content of all) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);
      // Roots: the checkpoint's pair and the pinned file; the other staged files go, and with them nothing a kept blob needs.
      const report = await collectGarbage(store);
      expect(report.unreachable.sort()).toEqual(files.slice(1).map(sha).sort());
      for (const content of [text, edited, files[0]!]) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    // The later migrations ran after it (they leave the blob tables as they are).
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'blob_index_%'").pluck().all()).toEqual(['blob_index_raw']);
    db.close();
  });

  it('a failed migration is STORE_MIGRATION_FAILED, naming the versions, and leaves the store byte-identical at version 5', async () => {
    const path = join(dir, 'w.db');
    // A table by hand where migration 6 creates its index: the CREATE INDEX fails mid-migration.
    await writeVersion5Store(path, (db) => db.exec('CREATE TABLE blob_index_raw (x)'));
    const before = digest(path);
    const error = await SqliteStore.open({ path }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'StoreError', code: 'STORE_MIGRATION_FAILED', details: { path, storeVersion: 5, failedVersion: 6 } });
    expect((error as Error).message).toContain('Nothing was changed');
    expect(digest(path)).toBe(before);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'blob_index_pack'").pluck().get()).toBe('blob_index_pack');
    db.close();
  });
});
