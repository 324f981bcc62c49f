import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import type { FileRewinder } from './file-rewinder.js';

describe('skipping a file in a checked rewind', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  beforeEach(async () => ({ h, rewinder } = await RewindHarness.withRewinder()));
  afterEach(() => h.cleanup());

  it("leaves a skipped file's content byte for byte, rewinds the others, says so, and a redo leaves it too", async () => {
    h.put('kept.txt', 'k0\n');
    h.put('other.txt', 'o0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'kept.txt', 'k1\n');
    await h.recordWrite(turn, 'other.txt', 'o1\n');
    await h.recordWrite(turn, 'new.txt', 'n1\n');
    // The person's own save: bytes that are not even UTF-8.
    const mine = Buffer.concat([Buffer.from('mine\n'), randomBytes(64), Buffer.from([0xff, 0xfe, 0x00])]);
    writeFileSync(h.path('kept.txt'), mine);

    const blocked = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(blocked.canApply).toBe(false);
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: { 'workspace:kept.txt': 'skip' } });
    expect(preview.canApply).toBe(true);
    expect(preview.files.find((file) => file.path === 'workspace:kept.txt')).toMatchObject({
      status: 'external_modified',
      resolution: 'skip',
      action: 'none',
      targetHash: null,
    });
    const keptChange = preview.files.find((file) => file.path === 'workspace:kept.txt')!.checkpointIds;
    expect(preview.checkpointIds.some((id) => keptChange.includes(id))).toBe(false);

    const result = await rewinder.apply(preview);
    expect(readFileSync(h.path('kept.txt')).equals(mine)).toBe(true);
    expect(h.read('other.txt')).toBe('o0\n');
    expect(h.read('new.txt')).toBeNull();
    expect(result.skipped).toEqual(['workspace:kept.txt']);
    expect(result.files.map((file) => file.path).sort()).toEqual(['workspace:new.txt', 'workspace:other.txt']);

    // The skipped change was not undone, so a later undo of the turn offers it again.
    const again = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(again.checkpointIds).toEqual(keptChange);

    const later = Buffer.concat([mine, Buffer.from('saved again\n')]);
    writeFileSync(h.path('kept.txt'), later);
    await rewinder.redo(h.session.id, result.rewindId!);
    expect(readFileSync(h.path('kept.txt')).equals(later)).toBe(true);
    expect(h.read('other.txt')).toBe('o1\n');
    expect(h.read('new.txt')).toBe('n1\n');
  });

  it('skips a safe file too, and a file whose saved content is gone, so the rest can be rewound', async () => {
    h.put('safe.txt', 's0\n');
    h.put('gone.txt', `unique ${randomBytes(8).toString('hex')}\n`);
    h.put('rest.txt', 'r0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'safe.txt', 's1\n');
    const missing = h.read('gone.txt')!;
    await h.recordWrite(turn, 'gone.txt', 'g1\n');
    await h.recordWrite(turn, 'rest.txt', 'r1\n');
    await h.store.blobs.deleteMany([h.hash(missing)]);

    const preview = await rewinder.preview({
      sessionId: h.session.id,
      turnId: turn.turnId,
      resolutions: { 'workspace:safe.txt': 'skip', 'workspace:gone.txt': 'skip' },
    });
    expect(preview.files.find((file) => file.path === 'workspace:safe.txt')).toMatchObject({ status: 'safe', resolution: 'skip' });
    expect(preview.canApply).toBe(true);
    const result = await rewinder.apply(preview);
    expect(h.files()).toEqual({ 'safe.txt': 's1\n', 'gone.txt': 'g1\n', 'rest.txt': 'r0\n' });
    expect(result.skipped?.sort()).toEqual(['workspace:gone.txt', 'workspace:safe.txt']);
  });

  it('refuses when every file is skipped, and an unknown path, changing nothing', async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: { 'workspace:a.txt': 'skip' } });
    expect(preview.canApply).toBe(false);
    expect(preview.blockers).toEqual(['every file is skipped: nothing is left to rewind']);
    await expect(rewinder.apply(preview)).rejects.toMatchObject({ code: 'NOTHING_TO_REWIND' });
    await expect(rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: { 'workspace:b.txt': 'skip' } })).rejects.toMatchObject({
      code: 'RESOLUTION_UNKNOWN_PATH',
    });
    expect(h.files()).toEqual({ 'a.txt': 'a1\n' });
    expect(await rewinder.listRewinds(h.session.id)).toEqual([]);
  });

  it('keeps a rename whole: skipping its target leaves its source absent', async () => {
    h.put('from.txt', 'f0\n');
    h.put('other.txt', 'o0\n');
    const turn = await h.turn();
    await h.recordRename(turn, 'from.txt', 'to.txt');
    await h.recordWrite(turn, 'other.txt', 'o1\n');
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: { 'workspace:to.txt': 'skip' } });
    expect(preview.canApply).toBe(true);
    await rewinder.apply(preview);
    expect(h.files()).toEqual({ 'to.txt': 'f0\n', 'other.txt': 'o0\n' });
  });
});
