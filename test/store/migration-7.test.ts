import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, collectGarbage } from '../../src/blobs/index.js';
import { encodeDeltaBlob } from '../../src/blobs/blob-codec.js';
import { BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, BLOB_SCHEMA_V6_MIGRATION_SQL } from '../../src/store/sqlite/blobs/index.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { SQLITE_SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { writeOldLayoutBlobs } from './fixtures/pre-v8-blobs.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const digest = (path: string) => sha(readFileSync(path));

const text = Buffer.from(Array.from({ length: 400 }, (_, line) => `line ${line} of a file that changes a little\n`).join(''));
const edited = Buffer.from(text.toString().replace('line 7 ', 'line seven '));
/** Turn metadata as the capture writes it: every uncovered path with the whole command beside it. */
const command = 'git reset -q --mixed c0450a09d327ce5535cd040faebd31f01d2055dd && git checkout -q -f --detach 18367efd884871ac4fe6e2b85497859e65d64531';
const bigMetadata = {
  execUsed: true,
  uncovered: ['build', 'debug.log', 'pkg/cache.tmp'].map((path) => ({ path: `workspace:${path}`, reason: 'ignored', command })),
  uncoveredCount: 3,
};
const smallMetadata = { execUsed: false };

/**
 * A store at schema version 6: migrations 1–6 of this code, a whole blob and a delta on it as the
 * pack storage of that version wrote them (the delta without a version number; by hand, since this
 * code's pack storage writes the layout of migration 8), a session with two turns (metadata as
 * JSON text) and a checkpoint naming the pair.
 */
async function writeVersion6Store(path: string, tamper?: (db: Database.Database) => void): Promise<void> {
  const db = openDatabase({
    path,
    readOnly: false,
    busyTimeoutMs: 5000,
    migrations: migrations(BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, BLOB_SCHEMA_V6_MIGRATION_SQL, '').slice(0, 6),
  });
  expect(encodeDeltaBlob(text, edited).bytes[0]).toBeLessThan(2);
  writeOldLayoutBlobs(db, `${path}.blobs`, [{ content: text }, { content: edited, base: text }]);
  const now = Date.now();
  db.prepare(
    `INSERT INTO sessions (id, kind, tree_id, root_session_id, title, created_at, updated_at) VALUES ('ses_1', 'main', 'tree_1', 'ses_1', 't', ?, ?)`,
  ).run(now, now);
  db.prepare(
    `INSERT INTO messages (seq, id, tree_id, session_id, role, kind, status, depth, created_at, part_meta)
     VALUES (1, 'msg_1', 'tree_1', 'ses_1', 'user', 'input', 'complete', 0, ?, '[]')`,
  ).run(now);
  const turn = db.prepare(
    `INSERT INTO turns (id, session_id, user_message_id, status, branch_generation, metadata, started_at) VALUES (?, 'ses_1', 'msg_1', 'complete', 0, ?, ?)`,
  );
  turn.run('trn_big', JSON.stringify(bigMetadata), now);
  turn.run('trn_small', JSON.stringify(smallMetadata), now);
  db.prepare(
    `INSERT INTO checkpoints (id, session_id, seq, op, path, before_hash, after_hash, source, status, created_at)
     VALUES ('chk_1', 'ses_1', 1, 'modify', 'workspace:a.txt', ?, ?, 'fs', 'recorded', ?)`,
  ).run(sha(text), sha(edited), now);
  tamper?.(db);
  db.close();
}

describe('migration 7: deflated turn metadata, numbered deltas', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-migration7-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('converts a version 6 store in place: turns read back the same, old deltas read and serve as bases, GC keeps what is named', async () => {
    const path = join(dir, 'w.db');
    await writeVersion6Store(path);
    const store = await SqliteStore.open({ path });
    const versions = [edited];
    try {
      expect((await store.getTurn('trn_big')).metadata).toEqual(bigMetadata);
      expect((await store.getTurn('trn_small')).metadata).toEqual(smallMetadata);
      // Updating a converted turn merges into its metadata as before.
      await store.updateTurn('trn_big', { metadata: { note: 'after' } });
      expect((await store.getTurn('trn_big')).metadata).toEqual({ ...bigMetadata, note: 'after' });

      const blobs = new BlobStore(store);
      expect((await blobs.get(sha(text))).equals(text)).toBe(true);
      expect((await blobs.get(sha(edited))).equals(edited)).toBe(true);
      // New versions on the old delta: numbered from it (a delta written before counts as version 0).
      let previous = sha(edited);
      for (let edit = 1; edit <= 3; edit++) {
        const next = Buffer.from(
          versions
            .at(-1)!
            .toString()
            .replace(`line ${10 * edit} `, `line ${10 * edit} changed `),
        );
        versions.push(next);
        previous = await blobs.put(next, { baseHash: previous });
      }
      const records = await Promise.all(versions.slice(1).map((content) => blobs.stat(sha(content))));
      expect(records.map((record) => record.baseHash)).toEqual([sha(edited), sha(edited), sha(versions[2]!)]);
      expect(records.map((record) => record.chainDepth)).toEqual([2, 2, 3]);
      for (const content of [text, ...versions]) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);
      // Roots: the checkpoint's pair. The new versions go; the pair and its base stay.
      const report = await collectGarbage(store);
      expect(report.unreachable.sort()).toEqual(versions.slice(1).map(sha).sort());
      for (const content of [text, edited]) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    // The later migrations ran after it.
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    const kinds = db.prepare('SELECT id, typeof(metadata) AS kind FROM turns ORDER BY id').all();
    expect(kinds).toEqual([
      { id: 'trn_big', kind: 'blob' },
      { id: 'trn_small', kind: 'text' },
    ]);
    db.close();
  });

  it('a failed migration is STORE_MIGRATION_FAILED, naming the versions, and leaves the store byte-identical at version 6', async () => {
    const path = join(dir, 'w.db');
    // A trigger by hand that refuses updates of turns: rewriting the metadata fails mid-migration.
    await writeVersion6Store(path, (db) => db.exec("CREATE TRIGGER turns_frozen BEFORE UPDATE ON turns BEGIN SELECT RAISE(ABORT, 'frozen'); END"));
    const before = digest(path);
    const error = await SqliteStore.open({ path }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'StoreError', code: 'STORE_MIGRATION_FAILED', details: { path, storeVersion: 6, failedVersion: 7 } });
    expect(digest(path)).toBe(before);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    expect(db.prepare("SELECT typeof(metadata) FROM turns WHERE id = 'trn_big'").pluck().get()).toBe('text');
    db.close();
  });
});
