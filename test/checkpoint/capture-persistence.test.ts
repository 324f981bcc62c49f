import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { hashContent } from '../../src/model/index.js';
import { applyToolWrite, CheckpointedFs, captureExec, listRecentCheckpoints, openCaptureContext, summarizeTurn } from '../../src/checkpoint/index.js';

describe('checkpoints across capture paths and restarts', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-cp-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tool, fs and exec checkpoints of one turn survive closing and reopening the store, contents readable', async () => {
    const root = join(dir, 'project');
    mkdirSync(root);
    const storePath = join(root, '.waypoint', 'w.db');
    let store = await SqliteStore.open({ path: storePath });
    let blobs = new BlobStore(store);
    const session = await store.createSession({ title: 't', workdir: root });
    const user = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'go' }] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: user.message.id });
    const context = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: turn.id });

    await applyToolWrite(context, { path: 'a.txt', content: 'tool\n', toolCallId: 't1' });
    await new CheckpointedFs(context).writeFile('b.txt', 'fs\n');
    writeFileSync(join(root, 'c.txt'), 'before\n');
    await captureExec(context, () => execFileSync('bash', ['-c', 'echo after > c.txt; echo sh > d.txt'], { cwd: root }));
    const before = await store.listCheckpoints(session.id);
    await store.close();

    store = await SqliteStore.open({ path: storePath });
    blobs = new BlobStore(store);
    const after = await store.listCheckpoints(session.id);
    expect(after).toEqual(before);
    // The store lives inside the workspace (.waypoint/): its own files never show up as changes.
    expect(after.map((row) => [row.source, row.op, row.path])).toEqual([
      ['tool', 'create', 'workspace:a.txt'],
      ['fs', 'create', 'workspace:b.txt'],
      ['exec', 'modify', 'workspace:c.txt'],
      ['exec', 'create', 'workspace:d.txt'],
    ]);
    expect((await blobs.get(after[2]!.beforeHash!)).toString()).toBe('before\n');
    expect((await blobs.get(after[3]!.afterHash!)).toString()).toBe('sh\n');
    const listed = await listRecentCheckpoints(store, session.id, { limit: 2 });
    expect(listed.map((row) => row.displayPath)).toEqual(['d.txt', 'c.txt']);
    const summary = await summarizeTurn(store, blobs, turn.id);
    expect(summary.totals).toEqual({ files: 4, added: 4, removed: 1 });
    expect(await blobs.has(hashContent('before\n'))).toBe(true);
    await store.close();
  });
});
