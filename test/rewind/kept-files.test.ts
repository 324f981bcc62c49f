import { appendFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { keptFilesOf } from '../../src/workspace/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';
import { provableStamp } from '../fixtures/stamp-proof.js';

/** The files this process keeps beside the harness's store. */
function keptPaths(h: RewindHarness): string[] {
  const root = `${h.storePath}.kept`;
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((own) => readdirSync(join(root, own)).map((name) => join(root, own, name)));
}

const HIDDEN = /\.wp-(tmp|old)$/;

describe('files a rewind replaced, kept for the rewind that puts them back', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  beforeEach(async () => {
    h = await RewindHarness.create('waypoint-kept-');
    rewinder = new FileRewinder({ store: h.store });
    h.put('a.txt', 'a as it was\n');
    h.put('src/b.ts', 'export const b = 1;\n');
    h.put('gone.md', 'deleted by the agent\n');
  });
  afterEach(() => h.cleanup());

  async function agentTurn() {
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a as the agent wrote it\n');
    await h.recordWrite(turn, 'src/b.ts', 'export const b = 2;\n');
    await h.recordDelete(turn, 'gone.md');
    return turn;
  }

  it('an undo after a redo links back the very files the redo replaced: same inodes, same bytes and bits, nothing left beside them', async () => {
    const turn = await agentTurn();
    const undone = await rewinder.cascade(h.session.id, turn.messageId);
    const paths = ['a.txt', 'src/b.ts', 'gone.md'];
    const before = paths.map((path) => statSync(h.path(path)).ino);
    // Known only when its times prove it (placed a clock tick after it was written): almost always.
    const known = paths.map((path) => provableStamp(h.path(path)));
    // The redo replaces the files the undo wrote (this process wrote them, durably): they are kept, not removed.
    const redone = await rewinder.redo(h.session.id, undone.rewindId!);
    expect(h.files()).toEqual({ 'a.txt': 'a as the agent wrote it\n', 'src/b.ts': 'export const b = 2;\n' });
    expect(keptPaths(h)).toHaveLength(known.filter(Boolean).length);
    // Undone again: each content comes back as the file that held it, with no temp file written.
    await rewinder.redo(h.session.id, redone.rewindId!);
    expect(h.files()).toEqual({ 'a.txt': 'a as it was\n', 'src/b.ts': 'export const b = 1;\n', 'gone.md': 'deleted by the agent\n' });
    for (const [index, path] of paths.entries()) if (known[index]) expect(statSync(h.path(path)).ino, path).toBe(before[index]);
    expect(statSync(h.path('a.txt')).nlink).toBe(1);
    // The agent's versions the undo replaced are kept in turn; nothing hidden is left in the work tree.
    expect(keptPaths(h)).toHaveLength(2);
    expect(readdirSync(h.work).filter((name) => HIDDEN.test(name))).toEqual([]);
    expect(readdirSync(h.path('src')).filter((name) => HIDDEN.test(name))).toEqual([]);
    expect(await h.store.listJournals({ state: 'pending' })).toEqual([]);
  });

  it('a kept file written to through a descriptor opened before the rewind is not put back: the content is written anew', async () => {
    const turn = await agentTurn();
    const undone = await rewinder.cascade(h.session.id, turn.messageId);
    const first = statSync(h.path('a.txt')).ino;
    const known = provableStamp(h.path('a.txt'));
    const redone = await rewinder.redo(h.session.id, undone.rewindId!);
    // A program that held a.txt open writes on into the file the redo took away.
    const kept = keptPaths(h).find((path) => statSync(path).ino === first);
    expect(kept !== undefined).toBe(known);
    if (kept === undefined) return;
    appendFileSync(kept, 'appended by a program that still had it open\n');
    await rewinder.redo(h.session.id, redone.rewindId!);
    // Written anew: not the changed file (whose inode number the new file may even reuse once it is gone).
    expect(h.read('a.txt')).toBe('a as it was\n');
    // The changed file was not used, and is kept no more.
    expect(existsSync(kept)).toBe(false);
  });

  it('clearing them (as closing the Waypoint does) removes what this process kept', async () => {
    const turn = await agentTurn();
    const undone = await rewinder.cascade(h.session.id, turn.messageId);
    const known = provableStamp(h.path('a.txt')) || provableStamp(h.path('src/b.ts'));
    await rewinder.redo(h.session.id, undone.rewindId!);
    expect(keptPaths(h).length > 0).toBe(known);
    keptFilesOf(h.storePath).clear();
    expect(keptPaths(h)).toEqual([]);
    expect(readdirSync(`${h.storePath}.kept`)).toEqual([]);
  });
});
