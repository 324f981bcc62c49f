import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashContent, WaypointError } from '../../src/model/index.js';
import { FILE_REWIND_JOURNAL, FileRewinder, JOURNAL_RESOLVED_ENTRY, recoverJournals, resolvePendingJournal } from '../../src/rewind/index.js';
import { RewindHarness } from '../fixtures/rewind-harness.js';

// A rewind killed mid-apply leaves its journal pending; if the content a path held before it is
// then gone from the store (a damaged pack, a store restored from an older copy), recovery cannot
// put the path back, and every later rewind of the workspace refuses rather than plan on top of a
// half-applied one. The refusal must be typed and change nothing, and there must be a way out.
describe('a pending journal whose content before is gone', () => {
  let h: RewindHarness;
  beforeAll(async () => {
    h = await RewindHarness.create('waypoint-unrecoverable-');
  });
  afterAll(async () => {
    await h?.cleanup();
  });

  it('makes rewinds refuse REWIND_UNRECOVERABLE, changing nothing, until resolvePendingJournal gives it up', async () => {
    h.put('doc.txt', 'base\n');
    const turn = await h.turn('change the doc');
    const checkpoint = await h.recordWrite(turn, 'doc.txt', 'agent\n');
    // The apply that crashed: it had written its target (the agent's content back) over a content the store no longer has.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const journal = await h.store.createJournal({
      sessionId: h.session.id,
      kind: FILE_REWIND_JOURNAL,
      root: h.work,
      items: [
        {
          path: 'workspace:doc.txt',
          expectedHash: hashContent(Buffer.from('gone\n')),
          targetHash: hashContent(Buffer.from('agent\n')),
          mode: 0o644,
          expectedMode: 0o644,
        },
      ],
      metadata: {
        pid: Number(dead.stdout),
        host: hostname(),
        roots: [{ name: 'workspace', dir: h.work, kind: 'workspace' }],
        action: 'rewind',
        kind: 'checkpoint',
      },
    });
    const rewinder = new FileRewinder({ store: h.store, blobs: h.blobs });
    const files = h.files();
    const entries = await h.store.listEntries(h.session.id);

    // Refused, typed, nothing changed: the file, the journal, the session's entries.
    for (const attempt of [() => rewinder.restoreCheckpoint(checkpoint.id), () => rewinder.restoreLatest(h.session.id)]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(WaypointError.is(error, 'REWIND_UNRECOVERABLE'), String(error)).toBe(true);
      expect((error as WaypointError).message).toContain('resolvePendingJournal');
      expect((error as WaypointError).details).toMatchObject({ journalId: journal.id });
    }
    expect((await recoverJournals(h.store, undefined, { blobs: h.blobs })).failed.map((failed) => failed.journalId)).toEqual([journal.id]);
    expect(h.files()).toEqual(files);
    expect((await h.store.getJournal(journal.id)).state).toBe('pending');
    expect(await h.store.listEntries(h.session.id)).toEqual(entries);

    // The way out: the journal is given up, the file left as it is (its content kept), and on record.
    const resolution = await resolvePendingJournal({ store: h.store, blobs: h.blobs, journalId: journal.id });
    expect(resolution.left).toEqual([expect.objectContaining({ path: 'workspace:doc.txt', expectedHash: hashContent(Buffer.from('gone\n')) })]);
    expect(h.files()).toEqual(files);
    expect((await h.store.getJournal(journal.id)).state).toBe('rolled_back');
    const [resolved] = await h.store.listEntries(h.session.id, { type: JOURNAL_RESOLVED_ENTRY });
    expect(resolved?.data).toMatchObject({ rewindId: journal.id, left: [expect.objectContaining({ path: 'workspace:doc.txt' })] });
    expect(await h.blobs.has(hashContent(Buffer.from('agent\n')))).toBe(true);

    // Rewinds run again; resolving twice is refused.
    await rewinder.restoreCheckpoint(checkpoint.id);
    expect(h.read('doc.txt')).toBe('base\n');
    await expect(resolvePendingJournal({ store: h.store, blobs: h.blobs, journalId: journal.id })).rejects.toMatchObject({ code: 'JOURNAL_NOT_PENDING' });
  });
});
