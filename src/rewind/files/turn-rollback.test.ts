import { existsSync, mkdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import type { FileRewinder } from './file-rewinder.js';

describe('turn rollback (LIFO, moves back, honest errors)', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  beforeEach(async () => ({ h, rewinder } = await RewindHarness.withRewinder()));
  afterEach(() => h.cleanup());

  it('undoes a turn in reverse order: written, then moved, then rewritten at the target', async () => {
    h.put('src.txt', 'original\n');
    h.put('other.txt', 'other\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'src.txt', 'edited\n');
    await h.recordRename(turn, 'src.txt', 'dir/dst.txt', 'move');
    await h.recordWrite(turn, 'dir/dst.txt', 'edited again\n');
    await h.recordDelete(turn, 'other.txt');
    const result = await rewinder.rollbackTurn(turn.turnId);
    expect(result).toMatchObject({ ok: true, errors: [] });
    expect(h.files()).toEqual({ 'other.txt': 'other\n', 'src.txt': 'original\n' });
    expect(result.checkpointIds).toHaveLength(4);
  });

  it('a rename-only turn rolled back twice is ok both times', async () => {
    h.put('a.txt', 'content\n');
    const turn = await h.turn();
    await h.recordRename(turn, 'a.txt', 'b.txt');
    expect((await rewinder.rollbackTurn(turn.turnId)).ok).toBe(true);
    expect(h.files()).toEqual({ 'a.txt': 'content\n' });
    const second = await rewinder.rollbackTurn(turn.turnId);
    expect(second).toMatchObject({ ok: true, errors: [], files: [] });
    expect(h.files()).toEqual({ 'a.txt': 'content\n' });
  });

  it('a turn that created a file: the second rollback is not ok, because the file is already gone', async () => {
    const turn = await h.turn();
    await h.recordWrite(turn, 'made.txt', 'new\n');
    expect((await rewinder.rollbackTurn(turn.turnId)).ok).toBe(true);
    const second = await rewinder.rollbackTurn(turn.turnId);
    expect(second.ok).toBe(false);
    expect(second.errors).toEqual([expect.objectContaining({ path: 'workspace:made.txt', code: 'ALREADY_GONE' })]);
  });

  it('a moved file whose target is already gone comes back from its snapshot (write source, delete target)', async () => {
    h.put('a.txt', 'keep me\n');
    const turn = await h.turn();
    await h.recordRename(turn, 'a.txt', 'b.txt');
    h.put('b.txt', 'x'); // then removed by someone else
    const { unlinkSync } = await import('node:fs');
    unlinkSync(h.path('b.txt'));
    const result = await rewinder.rollbackTurn(turn.turnId);
    expect(result.ok).toBe(true);
    expect(h.files()).toEqual({ 'a.txt': 'keep me\n' });
  });

  it('reports skipped entries as errors, not successes, and still undoes the rest', async () => {
    mkdirSync(h.path('cache/deep'), { recursive: true });
    h.put('cache/deep/x.bin', 'x');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a\n');
    const skipped = await h.recordSkipped(turn, 'cache');
    const result = await rewinder.rollbackTurn(turn.turnId);
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([expect.objectContaining({ checkpointId: skipped.id, code: 'CHECKPOINT_SKIPPED' })]);
    expect(h.read('a.txt')).toBeNull();
    expect(existsSync(h.path('cache'))).toBe(false);
  });

  it('removes directories the turn created and recreates ones it removed', async () => {
    mkdirSync(h.path('old'));
    const turn = await h.turn();
    await h.recordDirectory(turn, 'made', 'mkdir');
    await h.recordWrite(turn, 'made/f.txt', 'f\n');
    await h.recordDirectory(turn, 'old', 'rmdir');
    const result = await rewinder.rollbackTurn(turn.turnId);
    expect(result).toMatchObject({ ok: true });
    expect(existsSync(h.path('made'))).toBe(false);
    expect(existsSync(h.path('old'))).toBe(true);
  });
});
