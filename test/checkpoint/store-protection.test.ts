import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { applyToolEdit, applyToolWrite, CheckpointedFs, openCaptureContext, type CaptureContext } from '../../src/checkpoint/index.js';
import { WaypointError } from '../../src/model/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { writeFileAtomic } from '../../src/workspace/index.js';

/** A store kept at <ws>/nest/.waypoint/w.db, inside the session's own workspace <ws>. */
describe('checkpointed writes never reach the store inside the workspace', () => {
  let dir: string;
  let root: string;
  let storePath: string;
  let store: SqliteStore;
  let context: CaptureContext;
  let fs: CheckpointedFs;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-store-guard-'));
    root = join(dir, 'ws');
    mkdirSync(root);
    storePath = join(root, 'nest', '.waypoint', 'w.db');
    store = await SqliteStore.open({ path: storePath });
    const blobs = new BlobStore(store);
    await blobs.put(Buffer.from('a blob, so the pack directory exists'));
    const session = await store.createSession({ title: 'guard', workdir: root });
    const user = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'go' }] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: user.message.id });
    context = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: turn.id });
    fs = new CheckpointedFs(context);
    symlinkSync(join(root, 'nest', '.waypoint'), join(root, 'storelink'));
    symlinkSync(storePath, join(root, 'dblink'));
    writeFileSync(join(root, 'nest', 'mine.txt'), 'mine\n');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Identity and size of every file the store keeps, to show none was touched. */
  function storeFiles(): string[] {
    const storeDir = join(root, 'nest', '.waypoint');
    const list = (path: string): string[] =>
      readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
        const full = join(path, entry.name);
        return entry.isDirectory() ? [`${full}/`, ...list(full)] : [`${full} ${statSync(full).ino}`];
      });
    return list(storeDir);
  }

  async function codeOf(fn: () => Promise<unknown>): Promise<string> {
    try {
      await fn();
    } catch (error) {
      if (WaypointError.is(error)) return error.code;
      throw error;
    }
    return 'no error';
  }

  it('refuses writes, edits, deletes, moves, mkdir and rmdir into or around the store with PATH_PROTECTED, and changes nothing', async () => {
    const before = storeFiles();
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['tool write db', () => applyToolWrite(context, { path: 'nest/.waypoint/w.db', content: 'x' })],
      ['tool write new file in store dir', () => applyToolWrite(context, { path: 'nest/.waypoint/other', content: 'x' })],
      ['tool write wal', () => applyToolWrite(context, { path: 'nest/.waypoint/w.db-wal', content: 'x' })],
      ['tool write pack', () => applyToolWrite(context, { path: 'nest/.waypoint/w.db.blobs/x.pack', content: 'x' })],
      ['tool write through dir link', () => applyToolWrite(context, { path: 'storelink/w.db', content: 'x' })],
      ['tool write through file link', () => applyToolWrite(context, { path: 'dblink', content: 'x' })],
      ['tool write with ..', () => applyToolWrite(context, { path: 'nest/../nest/./.waypoint/w.db', content: 'x' })],
      ['tool write absolute', () => applyToolWrite(context, { path: storePath, content: 'x' })],
      ['tool edit', () => applyToolEdit(context, { path: 'nest/.waypoint/w.db', oldString: 'SQLite', newString: 'x' })],
      ['fs write', () => fs.writeFile('nest/.waypoint/w.db', 'x')],
      ['fs delete db', () => fs.deleteFile('nest/.waypoint/w.db')],
      ['fs delete through link', () => fs.deleteFile('storelink/w.db-wal')],
      ['fs rename store dir', () => fs.rename('nest/.waypoint', 'moved')],
      ['fs move db out', () => fs.move('nest/.waypoint/w.db', 'stolen.db')],
      ['fs move a file over the db', () => fs.move('nest/mine.txt', 'nest/.waypoint/w.db', { overwrite: true })],
      ['fs move the parent of the store', () => fs.move('nest', 'elsewhere')],
      ['fs mkdir in store', () => fs.mkdir('nest/.waypoint/w.db.blobs/sub', { recursive: true })],
      ['fs rmdir store', () => fs.rmdir('nest/.waypoint', { recursive: true })],
      ['fs rmdir packs', () => fs.rmdir('storelink/w.db.blobs', { recursive: true })],
      ['fs rmdir the parent of the store', () => fs.rmdir('nest', { recursive: true })],
    ];
    const codes: Record<string, string> = {};
    for (const [name, attempt] of attempts) codes[name] = await codeOf(attempt);
    expect(codes).toEqual(Object.fromEntries(attempts.map(([name]) => [name, 'PATH_PROTECTED'])));
    expect(storeFiles()).toEqual(before);
    expect(existsSync(join(root, 'nest', 'mine.txt'))).toBe(true);
    expect(existsSync(join(root, 'moved')) || existsSync(join(root, 'stolen.db')) || existsSync(join(root, 'elsewhere'))).toBe(false);
    expect(await store.listCheckpoints(context.sessionId)).toEqual([]);
    // The store still works, and files beside it are written and recorded as usual.
    const written = await applyToolWrite(context, { path: 'nest/ok.txt', content: 'ok\n' });
    expect(written.checkpoint?.path).toBe('workspace:nest/ok.txt');
    // A link that points into the store is refused as a whole (its target is the store), even for a delete.
    expect(await codeOf(() => fs.deleteFile('dblink'))).toBe('PATH_PROTECTED');
  }, 20_000);

  it('refuses a write whose directory was swapped for a link into the store after the path was resolved', async () => {
    mkdirSync(join(root, 'out'));
    const resolved = context.workspace.resolve('out/waypoint.db');
    renameSync(join(root, 'out'), join(root, 'out-real'));
    symlinkSync(join(root, 'nest', '.waypoint'), join(root, 'out'));
    const before = storeFiles();
    expect(() => writeFileAtomic(resolved, 'x')).toThrow(expect.objectContaining({ code: 'PATH_PROTECTED' }));
    expect(storeFiles()).toEqual(before);
  });
});
