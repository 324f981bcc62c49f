import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listRecentCheckpoints } from './checkpoint-list.js';
import { CheckpointedFs } from './checkpointed-fs.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from './fixtures/capture-fixture.js';
import { applyToolEdit, applyToolWrite } from './tool-checkpoint.js';
import { summarizeTurn } from './turn-summary.js';

describe('listing and turn summaries', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture({ metadata: (dir) => ({ roots: [{ name: 'notes', dir: join(dir, 'notes'), kind: 'custom' }] }) });
  });
  afterEach(() => fx.cleanup());

  it('lists the latest N checkpoints newest first, with display paths', async () => {
    for (let index = 0; index < 55; index++) await applyToolWrite(fx.context, { path: `f${index}.txt`, content: `${index}` });
    await applyToolWrite(fx.context, { path: 'todo.md', root: 'notes', content: 'x' });
    const latest = await listRecentCheckpoints(fx.store, fx.sessionId);
    expect(latest).toHaveLength(50);
    expect(latest[0]).toMatchObject({ seq: 56, path: 'notes:todo.md', displayPath: 'notes:todo.md' });
    expect(latest[1]).toMatchObject({ seq: 55, path: 'workspace:f54.txt', displayPath: 'f54.txt' });
    expect((await listRecentCheckpoints(fx.store, fx.sessionId, { limit: 3 })).map((row) => row.seq)).toEqual([56, 55, 54]);
    expect(await errorCode(() => listRecentCheckpoints(fx.store, fx.sessionId, { limit: 0 }))).toBe('INVALID_ARGUMENT');
    expect(await errorCode(() => listRecentCheckpoints(fx.store, 'ses_nope'))).toBe('SESSION_NOT_FOUND');
  });

  it('summarizes a turn per file: net lines from stored contents, binary flagged, renames followed, skipped listed', async () => {
    writeFileSync(join(fx.root, 'a.ts'), 'one\ntwo\nthree\n');
    writeFileSync(join(fx.root, 'old.md'), 'doc\n');
    const fs = new CheckpointedFs(fx.context, { maxFileSize: 1024 });
    await applyToolEdit(fx.context, { path: 'a.ts', oldString: 'two', newString: '2' });
    await applyToolEdit(fx.context, { path: 'a.ts', oldString: 'three\n', newString: 'three\nfour\nfive\n' });
    await fs.writeFile('img.bin', Buffer.from([0, 1, 2, 3]));
    await fs.rename('old.md', 'new.md');
    await fs.writeFile('tmp.txt', 'scratch');
    await fs.deleteFile('tmp.txt');
    await fs.writeFile('big.log', Buffer.alloc(2000, 65));
    const other = await fx.nextTurn();
    await applyToolWrite(other, { path: 'later.txt', content: 'not in the first turn' });

    const summary = await summarizeTurn(fx.store, fx.blobs, fx.turnId);
    expect(summary.files.map((file) => [file.displayPath, file.op, file.added, file.removed, file.binary, file.fromPath])).toEqual([
      ['a.ts', 'modify', 3, 1, false, null],
      ['img.bin', 'create', null, null, true, null],
      ['new.md', 'rename', 0, 0, false, 'workspace:old.md'],
      ['big.log', 'create', null, null, false, null],
    ]);
    expect(summary.skipped).toEqual([expect.objectContaining({ displayPath: 'big.log', reason: 'too_large' })]);
    expect(summary.totals).toEqual({ files: 4, added: 3, removed: 1 });
    expect(await errorCode(() => summarizeTurn(fx.store, fx.blobs, 'trn_nope'))).toBe('TURN_NOT_FOUND');
  });
});
