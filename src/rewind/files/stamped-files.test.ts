import { lstatSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import { provableStamp } from '../../../test/fixtures/stamp-proof.js';
import { WaypointError } from '../../model/index.js';
import { Workspace, writtenStamps } from '../../workspace/index.js';
import { readDisk, resolveEntry } from './disk-state.js';
import { FileRewinder } from './file-rewinder.js';
import type { PlannedStep } from './rewind-plan.js';
import { readUnstored } from './stamped-files.js';

describe('files a rewind wrote, known by their stamp', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  let workspace: Workspace;
  beforeEach(async () => {
    ({ h, rewinder } = await RewindHarness.withRewinder());
    workspace = new Workspace({ roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }] });
    writtenStamps.clear();
  });
  afterEach(() => h.cleanup());

  it('an undo and a redo stamp what they wrote exactly when its times prove it, and the next ones know those files without reading them', async () => {
    h.put('a.txt', 'v0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'v1\n');
    const undone = await rewinder.cascade(h.session.id, turn.messageId);
    expect(h.read('a.txt')).toBe('v0\n');
    const afterUndo = provableStamp(h.path('a.txt'));
    expect(writtenStamps.holding(h.path('a.txt'), h.hash('v0\n')) !== null).toBe(afterUndo);
    if (afterUndo) {
      const disk = readDisk(workspace, 'workspace:a.txt', undefined, h.hash('v0\n'));
      expect(disk.ok && disk.state).toMatchObject({ exists: true, hash: h.hash('v0\n'), content: null });
      // Expecting other content, the file is read.
      const read = readDisk(workspace, 'workspace:a.txt', undefined, h.hash('v1\n'));
      expect(read.ok && read.state.content?.toString()).toBe('v0\n');
    }

    await rewinder.redo(h.session.id, undone.rewindId!);
    expect(h.read('a.txt')).toBe('v1\n');
    expect(writtenStamps.holding(h.path('a.txt'), h.hash('v1\n')) !== null).toBe(provableStamp(h.path('a.txt')));
    const again = await rewinder.cascade(h.session.id, turn.messageId);
    expect(h.read('a.txt')).toBe('v0\n');
    expect(again.files).toEqual([expect.objectContaining({ path: 'workspace:a.txt', fromHash: h.hash('v1\n'), toHash: h.hash('v0\n') })]);
    await rewinder.redo(h.session.id, again.rewindId!);
    expect(h.read('a.txt')).toBe('v1\n');
  });

  it('a file someone wrote into after the rewind (same size, its time set back) is read: the redo refuses, a direct rewind keeps what it overwrites', async () => {
    h.put('a.txt', 'v0\n');
    const turn = await h.turn();
    const checkpoint = await h.recordWrite(turn, 'a.txt', 'v1\n');
    const undone = await rewinder.cascade(h.session.id, turn.messageId);
    const { atime, mtime } = lstatSync(h.path('a.txt'));
    writeFileSync(h.path('a.txt'), 'v9\n');
    utimesSync(h.path('a.txt'), atime, mtime);

    const refused = await rewinder.redo(h.session.id, undone.rewindId!).catch((error: unknown) => error);
    expect(WaypointError.is(refused, 'REWIND_CONFLICT')).toBe(true);
    expect(h.read('a.txt')).toBe('v9\n');

    const direct = await rewinder.restoreCheckpoint(checkpoint.id);
    expect(h.read('a.txt')).toBe('v0\n');
    expect(direct.files).toEqual([expect.objectContaining({ fromHash: h.hash('v9\n') })]);
    expect(await h.blobs.has(h.hash('v9\n'))).toBe(true);
  });

  it('a redo that fails midway puts back the files it had replaced, those known only by their stamps too (from the store)', async () => {
    h.put('a.txt', 'a0\n');
    h.put('b.txt', 'b0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordWrite(turn, 'b.txt', 'b1\n');
    const undone = await rewinder.cascade(h.session.id, turn.messageId);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    expect(writtenStamps.holding(h.path('a.txt'), h.hash('a0\n')) !== null).toBe(provableStamp(h.path('a.txt')));
    const failing = new FileRewinder({
      store: h.store,
      hooks: {
        afterStep: (_path, index) => {
          if (index === 1) throw new Error('disk full (simulated by a hook)');
        },
      },
    });
    const error = await failing.redo(h.session.id, undone.rewindId!).catch((caught: unknown) => caught);
    expect(WaypointError.is(error, 'REWIND_APPLY_FAILED')).toBe(true);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    await rewinder.redo(h.session.id, undone.rewindId!);
    expect(h.files()).toEqual({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
  });

  it('a file known by its hash whose bytes the store no longer has is read before it is overwritten, and must still be what was planned', async () => {
    h.put('x.txt', 'ours\n');
    const step = (): PlannedStep => ({
      path: 'workspace:x.txt',
      resolved: resolveEntry(workspace, 'workspace:x.txt').resolved,
      expected: { exists: true, hash: h.hash('ours\n'), content: null, mode: 0o644 },
      target: { exists: false, hash: null, content: null, mode: null },
      moveFrom: null,
      resolution: null,
    });
    expect(await h.blobs.has(h.hash('ours\n'))).toBe(false);
    const unchanged = step();
    await readUnstored([unchanged], h.blobs, workspace);
    expect(unchanged.expected.content?.toString()).toBe('ours\n');

    h.put('x.txt', 'them\n');
    const changed = step();
    const error = await readUnstored([changed], h.blobs, workspace).catch((caught: unknown) => caught);
    expect(WaypointError.is(error, 'REWIND_CONFLICT')).toBe(true);
    expect(h.read('x.txt')).toBe('them\n');
  });
});
