import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, collectGarbage } from '../../src/blobs/index.js';
import { encodeDelta } from '../../src/blobs/delta-codec.js';
import { BLOB_SCHEMA_V1_SQL } from '../../src/store/sqlite/blobs/index.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { SQLITE_SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const digest = (path: string) => sha(readFileSync(path));

const PACK = 'pack-mx5kbgg7-7351-e543d878.pack';
const text = Buffer.from('line one\nline two\nline three\n'.repeat(40));
const edited = Buffer.from(`${text.toString()}line four\n`);
const loose = Buffer.from('nobody names me\n'.repeat(10));

/**
 * A store at schema version 4 as the code before migration 5 wrote one: migrations 1–4 (the v1
 * schema SQL, hex text hashes, pack names in index rows, one pin row per hash), a pack file with a
 * deflated blob, a delta against it and a raw blob, a checkpoint naming the first two, and a pin
 * set naming the raw one.
 */
function writeVersion4Store(path: string, extraPin?: string): { text: string; edited: string; loose: string } {
  const db = openDatabase({ path, readOnly: false, busyTimeoutMs: 5000, migrations: migrations(BLOB_SCHEMA_V1_SQL, '', '', '').slice(0, 4) });
  const hashes = { text: sha(text), edited: sha(edited), loose: sha(loose) };
  const deflated = deflateRawSync(text);
  const delta = Buffer.concat([Buffer.from([0]), encodeDelta(text, edited)]);
  const pinnedLoose = Buffer.from(loose);
  mkdirSync(`${path}.blobs`, { recursive: true });
  writeFileSync(join(`${path}.blobs`, PACK), Buffer.concat([deflated, delta, pinnedLoose]));
  const now = Date.now();
  db.prepare(`INSERT INTO blob_packs (name, pid, state, created_at) VALUES (?, 1, 'sealed', ?)`).run(PACK, now);
  const row = db.prepare(
    'INSERT INTO blob_index (hash, pack, pack_offset, stored_size, size, encoding, base_hash, chain_depth, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  row.run(hashes.text, PACK, 0, deflated.length, text.length, 'deflate', null, 0, now);
  row.run(hashes.edited, PACK, deflated.length, delta.length, edited.length, 'delta', hashes.text, 1, now);
  row.run(hashes.loose, PACK, deflated.length + delta.length, loose.length, loose.length, 'raw', null, 0, now);
  db.prepare(
    `INSERT INTO sessions (id, kind, tree_id, root_session_id, title, created_at, updated_at) VALUES ('ses_1', 'main', 'tree_1', 'ses_1', 't', ?, ?)`,
  ).run(now, now);
  db.prepare(
    `INSERT INTO checkpoints (id, session_id, seq, op, path, before_hash, after_hash, source, status, created_at, patch)
     VALUES ('chk_1', 'ses_1', 1, 'modify', 'workspace:a.txt', ?, ?, 'fs', 'recorded', ?, '@@ -1 +1 @@')`,
  ).run(hashes.text, hashes.edited, now);
  const pin = db.prepare('INSERT INTO blob_pins (owner, hash) VALUES (?, ?)');
  pin.run('session:ses_1:exec-files', hashes.loose);
  pin.run('session:ses_1:exec-files', hashes.text);
  if (extraPin) pin.run('session:ses_1:other', extraPin);
  db.close();
  return hashes;
}

describe('migration 5: compact blob rows and pin sets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-migration5-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('converts a version 4 store in place: every blob reads back verified, the checkpoint and its stored patch stay, pins stay roots', async () => {
    const path = join(dir, 'w.db');
    const hashes = writeVersion4Store(path);
    const store = await SqliteStore.open({ path });
    try {
      const blobs = new BlobStore(store);
      expect((await blobs.get(hashes.text)).equals(text)).toBe(true);
      expect((await blobs.get(hashes.edited)).equals(edited)).toBe(true);
      expect((await blobs.get(hashes.loose)).equals(loose)).toBe(true);
      expect(await store.blobs.getRecord(hashes.edited)).toMatchObject({ encoding: 'delta', baseHash: hashes.text, chainDepth: 1, size: edited.length });
      expect([...(await store.blobs.has([hashes.text, hashes.loose, sha(Buffer.from('absent'))]))].sort()).toEqual([hashes.text, hashes.loose].sort());
      const [checkpoint] = await store.listCheckpoints('ses_1');
      expect(checkpoint).toMatchObject({ beforeHash: hashes.text, afterHash: hashes.edited, patch: '@@ -1 +1 @@' });
      expect([...(await store.blobRoots())].sort()).toEqual([hashes.text, hashes.edited, hashes.loose].sort());

      // The pin set keeps working as one: adding, then replacing it, lets GC take the raw blob.
      await store.addBlobPins('session:ses_1:exec-files', [hashes.loose, hashes.edited]);
      expect((await collectGarbage(store)).unreachable).toEqual([]);
      await store.setBlobPins('session:ses_1:exec-files', []);
      const report = await collectGarbage(store);
      expect(report.unreachable).toEqual([hashes.loose]);
      expect(await store.blobs.has([hashes.loose])).toEqual(new Set());
      expect((await blobs.get(hashes.edited)).equals(edited)).toBe(true);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    // Opening runs the later migrations too.
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(db.prepare('SELECT typeof(hash) AS hash, typeof(pack) AS pack FROM blob_index LIMIT 1').get()).toEqual({ hash: 'blob', pack: 'integer' });
    db.close();
  });

  it('a version 4 store with a pin that is not a sha256 is refused by the migration and left byte-identical', async () => {
    const path = join(dir, 'w.db');
    writeVersion4Store(path, 'not-a-hash');
    const before = digest(path);
    await expect(SqliteStore.open({ path })).rejects.toMatchObject({ code: 'STORE_MIGRATION_FAILED', details: { storeVersion: 4, failedVersion: 5 } });
    expect(digest(path)).toBe(before);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    db.close();
  });

  it('refuses to pin something that is not a sha256, with a typed error, and keeps the pin set as it was', async () => {
    const store = await SqliteStore.open({ path: join(dir, 'w.db') });
    try {
      const hash = sha(text);
      await store.setBlobPins('owner', [hash]);
      await expect(store.addBlobPins('owner', ['ABC'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect([...(await store.blobRoots())]).toEqual([hash]);
    } finally {
      await store.close();
    }
  });
});
