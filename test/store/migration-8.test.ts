import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, collectGarbage } from '../../src/blobs/index.js';
import { BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, BLOB_SCHEMA_V6_MIGRATION_SQL } from '../../src/store/sqlite/blobs/index.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { PREFIX_BYTES } from '../../src/store/sqlite/pin-sets.js';
import { SQLITE_SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { writeOldLayoutBlobs } from './fixtures/pre-v8-blobs.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const digest = (path: string) => sha(readFileSync(path));

/** A shared base (as the compress pass's dictionary is) with small files as deltas of it, a file with two versions, staged files. */
const shared = Buffer.from('export function helper(value: number): number {\n  return value * 2;\n}\n'.repeat(30));
const small = Array.from({ length: 6 }, (_, index) => Buffer.from(`${shared.toString().slice(0, 400)}// file ${index}\nexport const id = ${index};\n`));
const text = Buffer.from(Array.from({ length: 300 }, (_, line) => `line ${line} of a file\n`).join(''));
const edited = Buffer.from(text.toString().replace('line 7 ', 'line seven '));
const staged = Array.from({ length: 5 }, (_, index) => Buffer.from(`staged file ${index}\n`.repeat(40 + index)));
/** Pinned before it was stored (a write in flight): not in the index. */
const notStored = sha(Buffer.from('pinned but never stored'));

/**
 * A store at schema version 7: migrations 1–7 of this code, blobs as the pack storage of that
 * version wrote them (by hand: encodings as text, delta bases as 32 bytes, milliseconds), two
 * checkpoints with hex hashes, and a pin set naming a stored blob and one never stored.
 */
function writeVersion7Store(path: string, tamper?: (db: Database.Database) => void): void {
  const db = openDatabase({
    path,
    readOnly: false,
    busyTimeoutMs: 5000,
    migrations: migrations(BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, BLOB_SCHEMA_V6_MIGRATION_SQL, '').slice(0, 7),
  });
  writeOldLayoutBlobs(db, `${path}.blobs`, [
    { content: shared },
    ...small.map((content) => ({ content, base: shared })),
    { content: text },
    { content: edited, base: text },
    ...staged.map((content) => ({ content, staged: true })),
  ]);
  const now = Date.now();
  db.prepare(
    `INSERT INTO sessions (id, kind, tree_id, root_session_id, title, created_at, updated_at) VALUES ('ses_1', 'main', 'tree_1', 'ses_1', 't', ?, ?)`,
  ).run(now, now);
  const checkpoint = db.prepare(
    `INSERT INTO checkpoints (id, session_id, seq, op, path, before_hash, after_hash, source, status, created_at) VALUES (?, 'ses_1', ?, ?, ?, ?, ?, 'fs', 'recorded', ?)`,
  );
  checkpoint.run('chk_1', 1, 'modify', 'workspace:a.txt', sha(text), sha(edited), now);
  checkpoint.run('chk_2', 2, 'create', 'workspace:b.ts', null, sha(small[0]!), now);
  db.prepare('INSERT INTO blob_pins (owner, hashes) VALUES (?, unhex(?))').run('session:ses_1:exec-files', sha(staged[0]!) + notStored);
  tamper?.(db);
  db.close();
}

describe('migration 8: smaller blob rows, checkpoint hashes as bytes, pins as prefixes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-migration8-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('converts a version 7 store in place: every blob and checkpoint reads back, the staged blobs compress, GC keeps what is named', async () => {
    const path = join(dir, 'w.db');
    const written = Date.now();
    writeVersion7Store(path);
    const store = await SqliteStore.open({ path });
    const all = [shared, ...small, text, edited, ...staged];
    try {
      const blobs = new BlobStore(store);
      for (const content of all) expect((await blobs.get(sha(content))).equals(content)).toBe(true);
      const records = await store.blobs.getRecords(all.map(sha));
      expect(records.size).toBe(all.length);
      for (const content of small) expect(records.get(sha(content))).toMatchObject({ encoding: 'delta', baseHash: sha(shared), chainDepth: 1 });
      expect(records.get(sha(edited))).toMatchObject({ encoding: 'delta', baseHash: sha(text) });
      expect(records.get(sha(text))).toMatchObject({ encoding: 'deflate', baseHash: null, chainDepth: 0 });
      expect(records.get(sha(staged[0]!))).toMatchObject({ encoding: 'raw', baseHash: null });
      // Times in whole seconds, rounded up: never earlier than the blob was written.
      for (const record of records.values()) {
        expect(record.createdAt % 1000).toBe(0);
        expect(record.createdAt).toBeGreaterThanOrEqual(written - 1000);
        expect(record.createdAt).toBeLessThanOrEqual(Date.now() + 1000);
      }
      expect(await store.getCheckpoint('chk_1')).toMatchObject({ beforeHash: sha(text), afterHash: sha(edited) });
      expect((await store.listCheckpoints('ses_1')).map((checkpoint) => [checkpoint.beforeHash, checkpoint.afterHash])).toEqual([
        [sha(text), sha(edited)],
        [null, sha(small[0]!)],
      ]);
      // The pinned blob (now a prefix) and the hash pinned before it was stored (kept whole) are both roots.
      const roots = await store.blobRoots();
      expect(roots).toEqual(new Set([sha(text), sha(edited), sha(small[0]!), sha(staged[0]!), notStored]));

      // The staged blobs are found through the rebuilt partial index and compressed.
      expect(await blobs.compressionBacklog()).toEqual({ blobs: staged.length, bytes: staged.reduce((sum, content) => sum + content.length, 0) });
      expect((await blobs.compress()).blobsMoved).toBe(staged.length);
      for (const content of all) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);
      // GC: the unnamed small files and staged files go; the shared base stays (a kept delta needs it), as do the named ones.
      const report = await collectGarbage(store);
      expect(report.unreachable.sort()).toEqual([...small.slice(1), ...staged.slice(1)].map(sha).sort());
      for (const content of [shared, small[0]!, text, edited, staged[0]!]) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);
      expect(await store.blobs.has(small.slice(1).map(sha))).toEqual(new Set());
      // A base no row names any more leaves `blob_bases` with the last delta on it.
      await store.blobs.deleteMany([sha(edited)]);
      expect((await new BlobStore(store).get(sha(text))).equals(text)).toBe(true);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(8);
    expect(db.prepare('SELECT DISTINCT typeof(encoding) FROM blob_index').pluck().all()).toEqual(['integer']);
    // Only the base a kept row names is left: the shared one (the first version's went with its delta).
    expect(db.prepare('SELECT lower(hex(hash)) FROM blob_bases').pluck().all()).toEqual([sha(shared)]);
    expect(db.prepare("SELECT typeof(before_hash), typeof(after_hash) FROM checkpoints WHERE id = 'chk_1'").raw().get()).toEqual(['blob', 'blob']);
    const pins = db.prepare('SELECT hashes, prefixes FROM blob_pins').get() as { hashes: Buffer; prefixes: Buffer };
    expect(pins.hashes.toString('hex')).toBe(notStored);
    expect(pins.prefixes.toString('hex')).toBe(sha(staged[0]!).slice(0, 2 * PREFIX_BYTES));
    // Checkpoints still refuse updates.
    db.close();
    const writable = new Database(path);
    expect(() => writable.prepare("UPDATE checkpoints SET path = 'x' WHERE id = 'chk_1'").run()).toThrow(/append-only/);
    writable.close();
  });

  it('a failed migration is STORE_MIGRATION_FAILED, naming the versions, and leaves the store byte-identical at version 7', async () => {
    const path = join(dir, 'w.db');
    // A delta base that is not 32 bytes (a damaged row): its copy into `blob_bases` fails mid-migration.
    writeVersion7Store(path, (db) => db.prepare('UPDATE blob_index SET base_hash = unhex(?) WHERE hash = unhex(?)').run('00ff', sha(edited)));
    const before = digest(path);
    const error = await SqliteStore.open({ path }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'StoreError', code: 'STORE_MIGRATION_FAILED', details: { path, storeVersion: 7, failedVersion: 8 } });
    expect(digest(path)).toBe(before);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.prepare('SELECT typeof(encoding) FROM blob_index LIMIT 1').pluck().get()).toBe('text');
    expect(db.prepare("SELECT typeof(before_hash) FROM checkpoints WHERE id = 'chk_1'").pluck().get()).toBe('text');
    db.close();
  });
});
