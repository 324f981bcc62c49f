import { existsSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import { hashContent, WaypointError } from '../../model/index.js';
import type { FileRewindApplyEvent } from './file-rewind-types.js';
import { FileRewinder } from './file-rewinder.js';
import { recoverJournals } from './journal-recovery.js';
import { listPreserved } from './preserved-contents.js';

async function expectCode(promise: Promise<unknown>, code: string): Promise<WaypointError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(WaypointError.is(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
  return error as WaypointError;
}

describe('journaled apply: compensation and crash recovery', () => {
  let h: RewindHarness;
  beforeEach(async () => {
    h = await RewindHarness.create();
  });
  afterEach(() => h.cleanup());

  it('a write failing mid-way puts every written file back, marks the journal rolled back and emits unavailable', async () => {
    h.put('a.txt', 'a0\n');
    h.put('dir/x.txt', 'x0\n');
    const turn = await h.turn();
    await h.recordDelete(turn, 'dir/x.txt');
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    // Restoring dir/x.txt fails for real: its directory has become a file since.
    rmSync(h.path('dir'), { recursive: true });
    writeFileSync(h.path('dir'), 'now a file');
    const rewinder = new FileRewinder({ store: h.store });
    const events: FileRewindApplyEvent[] = [];
    rewinder.events.on('rewind-apply', (event) => events.push(event));
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(preview.canApply).toBe(true);
    expect(preview.files.map((file) => file.path)).toEqual(['workspace:a.txt', 'workspace:dir/x.txt']); // a.txt is written first
    const error = await expectCode(rewinder.apply(preview), 'REWIND_APPLY_FAILED');
    expect(error.message).toContain('workspace:dir/x.txt');
    expect(h.read('a.txt')).toBe('a1\n');
    expect(h.read('dir')).toBe('now a file');
    const [journal] = await h.store.listJournals();
    expect(journal!.state).toBe('rolled_back');
    expect(await rewinder.listRewinds(h.session.id)).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ strategy: 'unavailable', error: expect.objectContaining({ code: 'REWIND_APPLY_FAILED' }) })]);
  });

  it('orders the apply: journal recorded before any temp file, journal synced before any file changes, directories synced before the commit', async () => {
    h.put('a.txt', 'a0\n');
    h.put('sub/b.txt', 'b0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordWrite(turn, 'sub/b.txt', 'b1\n');
    await h.recordWrite(turn, 'new.txt', 'created\n');
    const seen: string[] = [];
    const store = h.store;
    const temps = () => [...readdirSync(h.work), ...readdirSync(h.path('sub'))].filter((name) => name.endsWith('.wp-tmp')).length;
    const visible = () => JSON.stringify([h.read('a.txt'), h.read('sub/b.txt'), existsSync(h.path('new.txt'))]);
    const spied = Object.create(store) as typeof store;
    spied.createJournal = async (journal, options) => {
      seen.push(`create durable=${options?.durable ?? true} temps=${temps()}`);
      return store.createJournal(journal, options);
    };
    // Temp files are written in the thread pool while the journal syncs, so how many exist when the
    // sync starts varies; what must hold is that no file is changed before the sync has finished.
    spied.syncJournal = async (id) => {
      seen.push(`sync files=${visible()}`);
      await store.syncJournal(id);
      seen.push(`synced files=${visible()}`);
    };
    spied.setJournalState = async (id, state, writes, options) => {
      seen.push(`${state} durable=${options?.durable ?? true} temps=${temps()} files=${visible()}`);
      return store.setJournalState(id, state, writes, options);
    };
    const rewinder = new FileRewinder({ store: spied });
    await rewinder.apply(await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId }));
    expect(seen).toEqual([
      'create durable=false temps=0',
      `sync files=${JSON.stringify(['a1\n', 'b1\n', true])}`,
      `synced files=${JSON.stringify(['a1\n', 'b1\n', true])}`,
      `committed durable=false temps=0 files=${JSON.stringify(['a0\n', 'b0\n', false])}`,
    ]);
  });

  it('directories a restore creates are journaled and removed again by compensation and by recovery', async () => {
    h.put('a.txt', 'a0\n');
    h.put('keep/kept.txt', 'k\n');
    h.put('gone/deeper/x.txt', 'x0\n');
    h.put('keep/y.txt', 'y0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordDelete(turn, 'gone/deeper/x.txt');
    await h.recordDelete(turn, 'keep/y.txt');
    rmSync(h.path('gone'), { recursive: true });
    const failing = new FileRewinder({
      store: h.store,
      hooks: {
        afterStep: (_path, index) => {
          if (index === 2) throw new Error('disk full (simulated by a hook)');
        },
      },
    });
    const preview = await failing.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(preview.files).toHaveLength(3);
    await expectCode(failing.apply(preview), 'REWIND_APPLY_FAILED');
    expect(existsSync(h.path('gone'))).toBe(false);
    expect(h.files()).toEqual({ 'a.txt': 'a1\n', 'keep/kept.txt': 'k\n' });
    const [journal] = await h.store.listJournals();
    expect(journal!.metadata.createdDirectories).toEqual(['workspace:gone/deeper', 'workspace:gone']);

    // A crash after the directories and the file were created: recovery removes all three.
    const crashed = await h.store.createJournal({ ...journal!, id: undefined, metadata: { ...journal!.metadata, pid: 999_999_999 } } as never);
    h.put('gone/deeper/x.txt', 'x0\n');
    const report = await recoverJournals(await h.reopen());
    expect(report.recovered.map((entry) => entry.journalId)).toEqual([crashed.id]);
    expect(existsSync(h.path('gone'))).toBe(false);
  });

  it('a failed compensation escalates to REWIND_UNRECOVERABLE naming the files; recovery finishes the job later', async () => {
    h.put('a.txt', 'a0\n');
    h.put('b.txt', 'b0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordWrite(turn, 'b.txt', 'b1\n');
    const rewinder = new FileRewinder({
      store: h.store,
      hooks: {
        // b.txt (the newest change) is written first, then a.txt, then the apply fails.
        afterStep: (path) => {
          if (path === 'workspace:a.txt') throw new Error('disk full (simulated by a hook)');
        },
        // Putting b.txt back fails too (root ignores permissions, so a hook stands for the failing write).
        beforeRestore: (path) => {
          if (path === 'workspace:b.txt') throw new Error('disk full again (simulated by a hook)');
        },
      },
    });
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    const error = await expectCode(rewinder.apply(preview), 'REWIND_UNRECOVERABLE');
    expect(error.message).toContain('workspace:b.txt');
    const [journal] = await h.store.listJournals();
    expect(journal!.state).toBe('pending');

    expect(h.files()).toEqual({ 'a.txt': 'a1\n', 'b.txt': 'b0\n' });
    const store = await h.reopen();
    const report = await recoverJournals(store);
    // Compensation already put a.txt back; recovery finishes b.txt.
    expect(report.recovered).toEqual([{ journalId: journal!.id, restored: ['workspace:b.txt'], left: [], preserved: [] }]);
    expect(h.files()).toEqual({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' });
    expect((await store.getJournal(journal!.id)).state).toBe('rolled_back');
    expect(await recoverJournals(store)).toEqual({ recovered: [], skipped: [], failed: [] });
  });

  it('recovers a pending journal left by a crash: named files back to before, other files untouched, idempotent', async () => {
    h.put('a.txt', 'a0\n');
    h.put('b.txt', 'b0\n');
    h.put('other.txt', 'not in the journal\n');
    const a0 = await h.blobs.put(Buffer.from('a0\n'));
    const b0 = await h.blobs.put(Buffer.from('b0\n'));
    const target = await h.blobs.put(Buffer.from('target\n'));
    const journal = await h.store.createJournal({
      sessionId: h.session.id,
      kind: 'file-rewind',
      root: h.work,
      items: [
        { path: 'workspace:a.txt', expectedHash: a0, targetHash: target, mode: null },
        { path: 'workspace:b.txt', expectedHash: b0, targetHash: null, mode: null },
        { path: 'workspace:c.txt', expectedHash: null, targetHash: target, mode: null },
      ],
      metadata: { roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }], pid: 999_999_999 },
    });
    // The crash came after two of three writes.
    h.put('a.txt', 'target\n');
    unlinkSync(h.path('b.txt'));
    h.put('c.txt', 'target\n');
    h.put('other.txt', 'changed by someone else\n');
    const store = await h.reopen();
    const report = await recoverJournals(store);
    expect(report.recovered[0]!.journalId).toBe(journal.id);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'other.txt': 'changed by someone else\n' });
    expect((await store.getJournal(journal.id)).state).toBe('rolled_back');
    expect(await recoverJournals(store)).toEqual({ recovered: [], skipped: [], failed: [] });
  });

  it("leaves a content that is neither before nor after (a power loss lost the final commit, then an edit): the person's save wins", async () => {
    h.put('a.txt', 'a0\n');
    const a0 = await h.blobs.put(Buffer.from('a0\n'));
    const target = await h.blobs.put(Buffer.from('target\n'));
    const journal = await h.store.createJournal({
      sessionId: h.session.id,
      kind: 'file-rewind',
      root: h.work,
      items: [{ path: 'workspace:a.txt', expectedHash: a0, targetHash: target, mode: null }],
      metadata: { roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }], pid: 999_999_999 },
    });
    h.put('a.txt', 'edited after the rewind\n');
    const store = await h.reopen();
    const report = await recoverJournals(store);
    const edited = hashContent(Buffer.from('edited after the rewind\n'));
    // What the file held before the rewind is no file's content now: kept aside, on record.
    expect(report.recovered).toEqual([
      { journalId: journal.id, restored: [], left: ['workspace:a.txt'], preserved: [{ path: 'workspace:a.txt', hash: a0, mode: null }] },
    ]);
    expect((await listPreserved(store, h.session.id)).map((save) => [save.path, save.hash])).toEqual([['workspace:a.txt', a0]]);
    expect(h.read('a.txt')).toBe('edited after the rewind\n');
    expect(hashContent(Buffer.from(h.read('a.txt')!))).toBe(edited);
    expect((await store.getJournal(journal.id)).state).toBe('rolled_back');
  });

  it('skips a journal whose writer is still running', async () => {
    const journal = await h.store.createJournal({
      sessionId: h.session.id,
      kind: 'file-rewind',
      root: h.work,
      items: [],
      metadata: { pid: process.ppid, roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }] },
    });
    const report = await recoverJournals(h.store);
    expect(report.skipped).toEqual([{ journalId: journal.id, reason: expect.stringContaining('still running') }]);
    expect((await h.store.getJournal(journal.id)).state).toBe('pending');
  });
});
