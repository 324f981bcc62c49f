import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, collectGarbage } from '../../src/blobs/index.js';
import type { Message, PartContent } from '../../src/model/index.js';
import {
  BLOB_SCHEMA_V1_SQL,
  BLOB_SCHEMA_V5_MIGRATION_SQL,
  BLOB_SCHEMA_V6_MIGRATION_SQL,
  BLOB_SCHEMA_V8_MIGRATION_SQL,
  PackBlobStorage,
} from '../../src/store/sqlite/blobs/index.js';
import { addCheckpoints, createTurn } from '../../src/store/sqlite/records.js';
import { forkSession } from '../../src/store/sqlite/fork.js';
import { idEquals } from '../../src/store/sqlite/id-keys.js';
import { appendMessage, listTreeMessages } from '../../src/store/sqlite/messages.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { createSession } from '../../src/store/sqlite/sessions.js';
import { SqliteContext } from '../../src/store/sqlite/sqlite-context.js';
import { SQLITE_SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const digest = (path: string) => sha(readFileSync(path));
const text = (value: string): PartContent => ({ type: 'text', text: value });

/** Two sessions and two trees whose ids end in the same characters: the narrow keys are equal. */
const SHARED = 'k3y5h4r3';
const FIRST = { session: `ses_first_${SHARED}`, tree: `tre_first_${SHARED}` };
const SECOND = { session: `ses_second_${SHARED}`, tree: `tre_second_${SHARED}` };

const original = Buffer.from(Array.from({ length: 200 }, (_, line) => `line ${line} of a source file\n`).join(''));
const edited = Buffer.from(original.toString().replace('line 9 ', 'line nine '));
const unnamed = Buffer.from('a blob no checkpoint or pin names\n'.repeat(20));

const V9_DROPPED = ['checkpoints_turn', 'checkpoints_anchor', 'messages_tree', 'messages_session', 'messages_turn'];

interface Version8Store {
  first: { turns: string[]; inputs: string[]; messages: string[] };
  fork: { session: string; own: string };
  second: { messages: string[] };
  checkpoints: string[];
}

/**
 * A store at schema version 8 written by this code's own layers: migrations 1–8, the session,
 * message, fork, turn and checkpoint functions on the database, and the pack storage (whose layout
 * is migration 8's) through a blob store, a delta among the blobs. Two sessions (and their trees)
 * have ids with the same last characters.
 */
async function writeVersion8Store(path: string, tamper?: (db: Database.Database) => void): Promise<Version8Store> {
  const db = openDatabase({
    path,
    readOnly: false,
    busyTimeoutMs: 5000,
    migrations: migrations(BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, BLOB_SCHEMA_V6_MIGRATION_SQL, BLOB_SCHEMA_V8_MIGRATION_SQL).slice(0, 8),
  });
  const context = new SqliteContext(db, path, false);
  const blobs = new BlobStore({ blobs: new PackBlobStorage(db, `${path}.blobs`, { readOnly: false }), blobRoots: async () => new Set() });
  await blobs.put(original);
  await blobs.put(edited, { baseHash: sha(original) });
  await blobs.put(unnamed);

  for (const ids of [FIRST, SECOND]) {
    createSession(context, { id: ids.session });
    db.prepare('UPDATE sessions SET tree_id = ? WHERE id = ?').run(ids.tree, ids.session);
  }
  const first: Version8Store['first'] = { turns: [], inputs: [], messages: [] };
  for (const round of [1, 2]) {
    const input = appendMessage(context, { sessionId: FIRST.session, role: 'user', parts: [text(`question ${round}`)] }).message;
    const turn = createTurn(context, { sessionId: FIRST.session, userMessageId: input.id });
    const reply = appendMessage(context, { sessionId: FIRST.session, role: 'assistant', turnId: turn.id, parts: [text(`answer ${round}`)] }).message;
    first.turns.push(turn.id);
    first.inputs.push(input.id);
    first.messages.push(input.id, reply.id);
  }
  const checkpoints = addCheckpoints(context, [
    {
      sessionId: FIRST.session,
      turnId: first.turns[0],
      anchorMessageId: first.inputs[0],
      op: 'create',
      path: 'workspace:a.ts',
      beforeHash: null,
      afterHash: sha(original),
      source: 'tool',
    },
    {
      sessionId: FIRST.session,
      turnId: first.turns[1],
      anchorMessageId: first.inputs[1],
      op: 'modify',
      path: 'workspace:a.ts',
      beforeHash: sha(original),
      afterHash: sha(edited),
      source: 'fs',
    },
  ]).map((checkpoint) => checkpoint.id);
  const forked = forkSession(context, { parentSessionId: FIRST.session, at: first.messages[1]!, kind: 'fork' }).session;
  const own = appendMessage(context, { sessionId: forked.id, role: 'user', parts: [text('a question in the fork')] }).message.id;
  const second = { messages: [appendMessage(context, { sessionId: SECOND.session, role: 'user', parts: [text('another conversation')] }).message.id] };
  tamper?.(db);
  db.close();
  return { first, fork: { session: forked.id, own }, second, checkpoints };
}

const ids = (messages: Message[]) => messages.map((message) => message.id);

describe('migration 9: narrow indexes of messages by tree and session, no unused indexes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-migration9-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('converts a version 8 store: messages, checkpoints and blobs read back, lookups by tree and session keep only their rows, GC keeps what is named', async () => {
    const path = join(dir, 'w.db');
    const written = await writeVersion8Store(path);
    const before = new Database(path, { readonly: true });
    const beforeContext = new SqliteContext(before, path, true);
    const treeBefore = ids(listTreeMessages(beforeContext, FIRST.tree));
    before.close();

    const store = await SqliteStore.open({ path });
    try {
      // The tree's messages, the same as before: none of the other tree's, whose id has the same key.
      expect(ids(await store.listTreeMessages(FIRST.tree))).toEqual(treeBefore);
      expect(treeBefore).toEqual([...written.first.messages, written.fork.own]);
      expect(ids(await store.listTreeMessages(SECOND.tree))).toEqual(written.second.messages);
      expect(ids(await store.history(FIRST.session))).toEqual(written.first.messages);
      expect((await store.history(FIRST.session, { parts: 'full' })).map((message) => message.parts.map((part) => part.content))).toEqual([
        [text('question 1')],
        [text('answer 1')],
        [text('question 2')],
        [text('answer 2')],
      ]);
      // Checkpoints by turn and by anchor, found among the session's.
      expect((await store.listCheckpoints(FIRST.session, { turnId: written.first.turns[1] })).map((checkpoint) => checkpoint.id)).toEqual([
        written.checkpoints[1],
      ]);
      expect((await store.listCheckpoints(FIRST.session, { anchorMessageId: written.first.inputs[0] })).map((checkpoint) => checkpoint.id)).toEqual([
        written.checkpoints[0],
      ]);
      expect(await store.getCheckpoint(written.checkpoints[1]!)).toMatchObject({ beforeHash: sha(original), afterHash: sha(edited) });
      const blobs = new BlobStore(store);
      for (const content of [original, edited, unnamed]) expect((await blobs.get(sha(content))).equals(content)).toBe(true);
      expect(await store.blobs.getRecord(sha(edited))).toMatchObject({ encoding: 'delta', baseHash: sha(original) });

      const report = await collectGarbage(store);
      expect(report.unreachable).toEqual([sha(unnamed)]);
      for (const content of [original, edited]) expect((await new BlobStore(store).get(sha(content))).equals(content)).toBe(true);

      // Deleting the fork takes its own message and leaves the parent's; deleting the session
      // whose id has the first's key takes only its own messages.
      await store.deleteSession(written.fork.session);
      await store.deleteSession(SECOND.session);
      expect(ids(await store.listTreeMessages(FIRST.tree))).toEqual(written.first.messages);
      expect(await store.listTreeMessages(SECOND.tree)).toEqual([]);
      expect(ids(await store.history(FIRST.session))).toEqual(written.first.messages);
    } finally {
      await store.close();
    }

    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(9);
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('messages', 'checkpoints')").pluck().all();
    for (const name of V9_DROPPED) expect(indexes).not.toContain(name);
    expect(indexes).toEqual(expect.arrayContaining(['messages_tree_key', 'messages_session_key']));
    // The lookups go through the narrow indexes (bound parameters, as the store binds them).
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ id: 'x' }) as Array<{ detail: string }>).map((row) => row.detail).join('; ');
    expect(plan(`SELECT id FROM messages WHERE ${idEquals('tree_id', '@id')}`)).toContain('USING INDEX messages_tree_key');
    expect(plan(`SELECT id FROM messages WHERE ${idEquals('session_id', '@id')}`)).toContain('USING INDEX messages_session_key');
    db.close();
  });

  it('a failed migration is STORE_MIGRATION_FAILED, naming the versions, and leaves the store byte-identical at version 8', async () => {
    const path = join(dir, 'w.db');
    // A table with the name of an index migration 9 creates: the CREATE INDEX fails mid-migration.
    await writeVersion8Store(path, (db) => db.exec('CREATE TABLE messages_tree_key (x)'));
    const before = digest(path);
    const error = await SqliteStore.open({ path }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'StoreError', code: 'STORE_MIGRATION_FAILED', details: { path, storeVersion: 8, failedVersion: 9 } });
    expect(digest(path)).toBe(before);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(8);
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index'").pluck().all();
    expect(indexes).toEqual(expect.arrayContaining(V9_DROPPED));
    db.close();
  });
});
