import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCode } from '../conformance/index.js';
import { NEW_STORE_PAGE_SIZE } from './open-database.js';
import { SqliteStore, SQLITE_SCHEMA_VERSION } from './sqlite-store.js';

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('opening a SQLite store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-open-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a new store with WAL, foreign keys and the current schema version', async () => {
    const path = join(dir, 'nested', 'store.db');
    const store = await SqliteStore.open({ path });
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    db.close();
  });

  it('gives a new store 1 KiB pages and leaves an existing store its page size', async () => {
    const fresh = join(dir, 'fresh.db');
    await (await SqliteStore.open({ path: fresh })).close();
    const db = new Database(fresh, { readonly: true });
    expect(db.pragma('page_size', { simple: true })).toBe(NEW_STORE_PAGE_SIZE);
    expect(NEW_STORE_PAGE_SIZE).toBe(1024);
    db.close();
    // A store created with SQLite's default pages (as every store was before) keeps them.
    const older = join(dir, 'older.db');
    const created = new Database(older);
    created.pragma('page_size = 4096');
    created.pragma('journal_mode = WAL');
    created.close();
    await (await SqliteStore.open({ path: older })).close();
    const reopened = new Database(older, { readonly: true });
    expect(reopened.pragma('page_size', { simple: true })).toBe(4096);
    expect(reopened.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    reopened.close();
  });

  it('refuses a text file and leaves it untouched', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'my notes, not a database\n'.repeat(10));
    const before = digest(path);
    const error = await expectCode(SqliteStore.open({ path }), 'NOT_A_WAYPOINT_STORE');
    expect(error.message).toContain('not a Waypoint store');
    expect(digest(path)).toBe(before);
  });

  it("refuses another program's SQLite database and leaves it untouched", async () => {
    const path = join(dir, 'other.db');
    const other = new Database(path);
    other.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('x')");
    other.close();
    const before = digest(path);
    await expectCode(SqliteStore.open({ path }), 'NOT_A_WAYPOINT_STORE');
    expect(digest(path)).toBe(before);
  });

  it('refuses a directory', async () => {
    await expectCode(SqliteStore.open({ path: dir }), 'NOT_A_WAYPOINT_STORE');
  });

  it('refuses a store written by a newer Waypoint and does not change it', async () => {
    const path = join(dir, 'store.db');
    await (await SqliteStore.open({ path })).close();
    const db = new Database(path);
    db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    db.close();
    const before = digest(path);
    const error = await expectCode(SqliteStore.open({ path }), 'STORE_SCHEMA_TOO_NEW');
    expect(error.details).toMatchObject({ storeVersion: SQLITE_SCHEMA_VERSION + 1, supportedVersion: SQLITE_SCHEMA_VERSION });
    expect(digest(path)).toBe(before);
  });

  it('opened read-only, it reads but every write raises STORE_READ_ONLY and changes nothing', async () => {
    const path = join(dir, 'store.db');
    const writable = await SqliteStore.open({ path });
    const session = await writable.createSession({ title: 'Frozen' });
    await writable.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    await writable.close();
    const store = await SqliteStore.open({ path, readOnly: true });
    expect(store.readOnly).toBe(true);
    expect((await store.history(session.id)).length).toBe(1);
    await expectCode(store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'no' }] }), 'STORE_READ_ONLY');
    await expectCode(store.createSession(), 'STORE_READ_ONLY');
    await expectCode(store.moveHead({ sessionId: session.id, to: null, reason: 'rewind' }), 'STORE_READ_ONLY');
    await expectCode(
      store.blobs.putMany([
        { record: { hash: 'a'.repeat(64), size: 1, storedSize: 1, encoding: 'raw', baseHash: null, chainDepth: 0 }, bytes: Buffer.from('a') },
      ]),
      'STORE_READ_ONLY',
    );
    await store.close();
    const again = await SqliteStore.open({ path });
    expect((await again.history(session.id)).length).toBe(1);
    expect(await again.listSessions()).toHaveLength(1);
    await again.close();
  });

  it('refuses to create a missing store in read-only mode', async () => {
    await expectCode(SqliteStore.open({ path: join(dir, 'absent.db'), readOnly: true }), 'STORE_READ_ONLY');
  });

  it('a closed store raises STORE_CLOSED', async () => {
    const store = await SqliteStore.open({ path: join(dir, 'store.db') });
    await store.close();
    await expectCode(store.listSessions(), 'STORE_CLOSED');
  });

  it('enforces append-only records in the database itself', async () => {
    const path = join(dir, 'store.db');
    const store = await SqliteStore.open({ path });
    const session = await store.createSession();
    const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'fixed' }] });
    await store.close();
    const db = new Database(path);
    expect(() => db.prepare('UPDATE entries SET type = ?').run('tampered')).toThrow(/append-only/);
    expect(() => db.prepare('UPDATE messages SET kind = ? WHERE id = ?').run('summary', message.id)).toThrow(/immutable/);
    expect(() => db.prepare('UPDATE message_parts SET parts = ?').run('[]')).toThrow(/immutable/);
    expect(() => db.prepare('UPDATE messages SET status = ? WHERE id = ?').run('error', message.id)).toThrow(/immutable/);
    db.close();
  });

  it('a path below a regular file, or with a name too long, is refused with STORE_PATH_UNUSABLE naming the path; nothing is created', async () => {
    const file = join(dir, 'plain');
    writeFileSync(file, 'not a directory');
    const cases: Array<[string, RegExp]> = [
      [join(file, 'waypoint.db'), /plain is a file, not a directory/],
      [join(file, 'deeper', 'waypoint.db'), /plain is a file, not a directory/],
      [join(dir, 'h'.repeat(256), 'waypoint.db'), /longer than a file system allows/],
    ];
    for (const [path, reason] of cases) {
      const error = await expectCode(SqliteStore.open({ path }), 'STORE_PATH_UNUSABLE');
      expect(error.exitCode).toBe(5);
      expect(error.message).toContain(path);
      expect(error.message).toMatch(reason);
      expect(error.details).toMatchObject({ path });
    }
    expect(readdirSync(dir)).toEqual(['plain']);
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
  });
});
