import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaypointError } from '../../src/model/index.js';
import { FileRewinder, recoverJournals } from '../../src/rewind/files/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';

async function expectCode(promise: Promise<unknown>, code: string): Promise<WaypointError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(WaypointError.is(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
  return error as WaypointError;
}

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

describe('a file and a directory trading places, rewound and redone', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  beforeEach(async () => {
    h = await RewindHarness.create('waypoint-dir-file-');
    rewinder = new FileRewinder({ store: h.store });
  });
  afterEach(() => h.cleanup());

  /** The agent deletes the file `notes`, then writes `notes/today.md` and `notes/deep/more.md`. */
  async function fileBecomesDirectory() {
    h.put('notes', 'a file of notes\n');
    const turn = await h.turn();
    await h.recordDelete(turn, 'notes');
    mkdirSync(h.path('notes/deep'), { recursive: true });
    await h.recordWrite(turn, 'notes/today.md', 'today\n');
    await h.recordWrite(turn, 'notes/deep/more.md', 'more\n');
    return turn;
  }

  it('a file the agent replaced by a directory is rewound (the directory emptied, the file back), and redone, and rewound again', async () => {
    const turn = await fileBecomesDirectory();
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(preview.canApply).toBe(true);
    const applied = await rewinder.apply(preview);
    expect(h.files()).toEqual({ notes: 'a file of notes\n' });
    const redo = await rewinder.redo(h.session.id, applied.rewindId!);
    expect(h.files()).toEqual({ 'notes/today.md': 'today\n', 'notes/deep/more.md': 'more\n' });
    await rewinder.redo(h.session.id, redo.rewindId!);
    expect(h.files()).toEqual({ notes: 'a file of notes\n' });
    expect(await h.store.listJournals({ state: 'pending' })).toEqual([]);
  });

  it('a rewind that turned a file back into a directory can be redone', async () => {
    h.put('build/out.txt', 'output\n');
    const turn = await h.turn();
    await h.recordDelete(turn, 'build/out.txt');
    rmSync(h.path('build'), { recursive: true });
    await h.recordWrite(turn, 'build', 'now a file\n');
    const rewound = await rewinder.cascade(h.session.id, turn.messageId);
    expect(h.files()).toEqual({ 'build/out.txt': 'output\n' });
    await rewinder.redo(h.session.id, rewound.rewindId!);
    expect(h.files()).toEqual({ build: 'now a file\n' });
  });

  it('a directory holding anything the rewind does not remove is refused with the reason, and nothing changes', async () => {
    const turn = await fileBecomesDirectory();
    h.put('notes/person.md', "the person's own note\n");
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(preview.canApply).toBe(false);
    expect(preview.files.find((file) => file.path === 'workspace:notes')).toMatchObject({
      status: 'file_read_failed',
      reason: expect.stringContaining('workspace:notes/person.md'),
    });
    const before = h.files();
    await expectCode(rewinder.apply(preview), 'REWIND_CONFLICT');
    expect(h.files()).toEqual(before);
    const error = await expectCode(rewinder.cascade(h.session.id, turn.messageId), 'REWIND_CONFLICT');
    expect(error.message).toContain('workspace:notes/person.md');
    expect(h.files()).toEqual(before);
  });

  it('a failure after the directory gave way puts the directory and its files back', async () => {
    const turn = await fileBecomesDirectory();
    const failing = new FileRewinder({
      store: h.store,
      hooks: {
        afterStep: (path) => {
          if (path === 'workspace:notes') throw new Error('disk full (simulated by a hook)');
        },
      },
    });
    await expectCode(failing.apply(await failing.preview({ sessionId: h.session.id, turnId: turn.turnId })), 'REWIND_APPLY_FAILED');
    expect(h.files()).toEqual({ 'notes/today.md': 'today\n', 'notes/deep/more.md': 'more\n' });
    expect((await h.store.listJournals())[0]!.state).toBe('rolled_back');
  });

  it("recovery after a crash once the file took the directory's place: the directory and its files come back", async () => {
    const turn = await fileBecomesDirectory();
    // A real apply, stopped for good right after the file replaced the directory: the journal stays
    // pending as if the process had been killed there.
    const crashing = new FileRewinder({
      store: h.store,
      hooks: {
        afterStep: (path) => {
          if (path === 'workspace:notes') throw new Error('killed');
        },
        beforeRestore: () => {
          throw new Error('killed');
        },
      },
    });
    await expectCode(crashing.apply(await crashing.preview({ sessionId: h.session.id, turnId: turn.turnId })), 'REWIND_UNRECOVERABLE');
    expect(h.files()).toEqual({ notes: 'a file of notes\n' });
    const [journal] = await h.store.listJournals({ state: 'pending' });
    const report = await recoverJournals(await h.reopen());
    expect(report.recovered.map((entry) => entry.journalId)).toEqual([journal!.id]);
    expect(h.files()).toEqual({ 'notes/today.md': 'today\n', 'notes/deep/more.md': 'more\n' });
    expect(isDirectory(h.path('notes/deep'))).toBe(true);
  });
});
