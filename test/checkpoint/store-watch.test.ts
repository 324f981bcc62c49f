import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { captureExec, openCaptureContext, type CaptureContext } from '../../src/checkpoint/index.js';
import { SqliteStore } from '../../src/store/index.js';

const bash = (cwd: string, script: string) => execFileSync('bash', ['-c', script], { cwd, stdio: 'ignore' });

/**
 * A caller of `captureExec` running its own command (no read-only store, unlike the runtime's bash
 * tool) with the store inside the workspace: the scans never take the store's files as the
 * workspace's, and the capture says when the command reached them.
 */
describe('exec capture with the store inside the workspace', () => {
  let dir: string;
  let root: string;
  let store: SqliteStore;
  let context: CaptureContext;
  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'waypoint-store-watch-')));
    root = join(dir, 'ws');
    mkdirSync(root);
    store = await SqliteStore.open({ path: join(root, '.waypoint', 'w.db') });
    const blobs = new BlobStore(store);
    await blobs.put(Buffer.from('something stored'));
    const session = await store.createSession({ workdir: root });
    const user = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'go' }] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: user.message.id });
    context = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: turn.id });
    writeFileSync(join(root, 'a.txt'), 'a\n');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a command that moves the store into the tree: nothing of it is recorded, the move is reported as store_touched', async () => {
    const { capture } = await captureExec(context, () => bash(root, 'mv .waypoint moved; echo b > b.txt'), { command: 'mv' });
    expect(capture.checkpoints.map((row) => row.path)).toEqual(['workspace:b.txt']);
    expect(capture.storeTouched).toEqual([join(root, '.waypoint')]);
    expect(capture.uncovered).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: join(root, '.waypoint'), reason: 'store_touched' }),
        expect.objectContaining({ path: 'workspace:moved', reason: 'store_file' }),
      ]),
    );
    expect(capture.partiallyProtected).toBe(true);
    bash(root, 'mv moved .waypoint');
    // The session is still there and the next command records as usual.
    const next = await captureExec(context, () => bash(root, 'echo c > c.txt'));
    expect(next.capture.checkpoints.map((row) => row.path)).toEqual(['workspace:c.txt']);
    expect(next.capture.storeTouched).toEqual([]);
  });

  it('a command that overwrites the database is reported', async () => {
    const saved = join(dir, 'saved.db');
    const database = join(root, '.waypoint', 'w.db');
    bash(root, `cp ${database} ${saved}`);
    const { capture } = await captureExec(context, () => bash(root, `printf x | dd of=${database} conv=notrunc status=none`));
    bash(root, `cp ${saved} ${database}`); // put the bytes back so the store can close
    expect(capture.storeTouched).toEqual([database]);
  });
});
