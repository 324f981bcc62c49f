import { chmodSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import { WaypointError } from '../../model/index.js';
import type { FileRewindApplyEvent } from './file-rewind-types.js';
import { FileRewinder } from './file-rewinder.js';

async function expectCode(promise: Promise<unknown>, code: string): Promise<WaypointError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(WaypointError.is(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
  return error as WaypointError;
}

describe('direct file rewind (/rewind <checkpoint>, latest, code <message>, cascade)', () => {
  let h: RewindHarness;
  let rewinder: FileRewinder;
  let events: FileRewindApplyEvent[];
  beforeEach(async () => {
    h = await RewindHarness.create();
    rewinder = new FileRewinder({ store: h.store });
    events = [];
    rewinder.events.on('rewind-apply', (event) => events.push(event));
  });
  afterEach(() => h.cleanup());

  // As root (these tests run as root here) the owner is carried over to the new file, and the order
  // of chown and chmod decides whether the setuid bit survives.
  it.runIf(process.getuid?.() === 0)('restores a setuid file as 4755 and redoes it as 4755, as root', async () => {
    h.put('tool', 'v0\n');
    chmodSync(h.path('tool'), 0o4755);
    const turn = await h.turn();
    await h.recordWrite(turn, 'tool', 'v1\n');
    chmodSync(h.path('tool'), 0o755);
    const result = await rewinder.cascade(h.session.id, turn.messageId);
    expect(h.read('tool')).toBe('v0\n');
    expect(statSync(h.path('tool')).mode & 0o7777).toBe(0o4755);
    await rewinder.redo(h.session.id, result.rewindId!);
    expect(h.read('tool')).toBe('v1\n');
    expect(statSync(h.path('tool')).mode & 0o7777).toBe(0o755);
    await rewinder.redo(h.session.id, (await rewinder.listRewinds(h.session.id)).at(-1)!.rewindId);
    expect(statSync(h.path('tool')).mode & 0o7777).toBe(0o4755);
  });

  it('restores a modified file without checking later edits, keeping the overwritten content and recording the rewind', async () => {
    h.put('a.txt', 'v0\n');
    const turn = await h.turn();
    const checkpoint = await h.recordWrite(turn, 'a.txt', 'v1\n');
    h.put('a.txt', 'person edit\n');
    const result = await rewinder.restoreCheckpoint(checkpoint.id);
    expect(h.read('a.txt')).toBe('v0\n');
    expect(await h.blobs.has(h.hash('person edit\n'))).toBe(true);
    expect(result.files).toEqual([expect.objectContaining({ path: 'workspace:a.txt', fromHash: h.hash('person edit\n'), toHash: h.hash('v0\n') })]);
    expect((await rewinder.listRewinds(h.session.id)).map((rewind) => rewind.rewindId)).toEqual([result.rewindId]);
    expect(events).toEqual([expect.objectContaining({ strategy: 'file_only', rewindId: result.rewindId, kind: 'checkpoint' })]);
    expect((await h.store.getJournal(result.rewindId!)).state).toBe('committed');

    await rewinder.redo(h.session.id, result.rewindId!);
    expect(h.read('a.txt')).toBe('person edit\n');
  });

  it('deletes a created file, recreates a deleted one with its mode, and moves a renamed file back', async () => {
    h.put('gone.sh', '#!/bin/sh\n');
    const { chmodSync } = await import('node:fs');
    chmodSync(h.path('gone.sh'), 0o755);
    h.put('old/name.txt', 'moved\n');
    const turn = await h.turn();
    const created = await h.recordWrite(turn, 'new.txt', 'fresh\n');
    const deleted = await h.recordDelete(turn, 'gone.sh');
    const renamed = await h.recordRename(turn, 'old/name.txt', 'new/place.txt', 'move');
    const inode = statSync(h.path('new/place.txt')).ino;

    await rewinder.restoreCheckpoint(created.id);
    expect(h.read('new.txt')).toBeNull();
    await rewinder.restoreCheckpoint(deleted.id);
    expect(h.read('gone.sh')).toBe('#!/bin/sh\n');
    expect(statSync(h.path('gone.sh')).mode & 0o777).toBe(0o755);
    const moved = await rewinder.restoreCheckpoint(renamed.id);
    expect(h.read('old/name.txt')).toBe('moved\n');
    expect(h.read('new/place.txt')).toBeNull();
    expect(statSync(h.path('old/name.txt')).ino).toBe(inode); // moved back with one rename, not rewritten
    expect(moved.files.map((file) => file.path).sort()).toEqual(['workspace:new/place.txt', 'workspace:old/name.txt']);
  });

  it('restoreLatest walks back one change at a time and says when there is nothing left', async () => {
    await expectCode(rewinder.restoreLatest(h.session.id), 'NO_CHECKPOINTS');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'one\n');
    await h.recordWrite(turn, 'a.txt', 'two\n');
    await rewinder.restoreLatest(h.session.id);
    expect(h.read('a.txt')).toBe('one\n');
    await rewinder.restoreLatest(h.session.id);
    expect(h.read('a.txt')).toBeNull();
    const error = await expectCode(rewinder.restoreLatest(h.session.id), 'NOTHING_TO_REWIND');
    expect(error.message).toMatch(/already rewound/);
  });

  it('restoreLatest finds the newest change not rewound behind many rewound ones', async () => {
    const first = await h.turn('first');
    await h.recordWrite(first, 'a.txt', 'one\n');
    await h.recordWrite(first, 'a.txt', 'two\n');
    const later = await h.turn('later');
    for (let index = 0; index < 20; index++) await h.recordWrite(later, `f${index}.txt`, `${index}\n`);
    await rewinder.cascade(h.session.id, later.messageId);
    await rewinder.restoreLatest(h.session.id);
    expect(h.files()).toEqual({ 'a.txt': 'one\n' });
  });

  it('restoreMessage restores the latest checkpoint anchored at that user message only', async () => {
    h.put('a.txt', 'a0\n');
    const first = await h.turn('first');
    await h.recordWrite(first, 'a.txt', 'a1\n');
    await h.recordWrite(first, 'b.txt', 'b1\n');
    const second = await h.turn('second');
    await h.recordWrite(second, 'a.txt', 'a2\n');
    await rewinder.restoreMessage(h.session.id, first.messageId);
    expect(h.files()).toEqual({ 'a.txt': 'a2\n' }); // b.txt (latest of the first message) removed; a.txt untouched
    await expectCode(rewinder.restoreMessage(h.session.id, 'msg_0000000000000000000000000z'), 'MESSAGE_NOT_FOUND');
  });

  it("cascade undoes a message's turn and every later one, newest first", async () => {
    h.put('keep.txt', 'untouched\n');
    h.put('a.txt', 'a0\n');
    const early = await h.turn('early');
    await h.recordWrite(early, 'early.txt', 'stays\n');
    const from = await h.turn('from here');
    await h.recordWrite(from, 'a.txt', 'a1\n');
    await h.recordRename(from, 'a.txt', 'b.txt');
    const later = await h.turn('later');
    await h.recordWrite(later, 'b.txt', 'b2\n');
    await h.recordWrite(later, 'c.txt', 'c\n');
    const result = await rewinder.cascade(h.session.id, from.messageId);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n', 'early.txt': 'stays\n', 'keep.txt': 'untouched\n' });
    expect(result.checkpointIds).toHaveLength(4);
    await expectCode(rewinder.cascade(h.session.id, from.messageId), 'NOTHING_TO_REWIND');
  });

  it('cascade reads every snapshot first and gives up whole when one is missing', async () => {
    h.put('a.txt', 'a0\n');
    h.put('z.txt', 'z0 unique content\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'z.txt', 'z1\n');
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.store.blobs.deleteMany([h.hash('z0 unique content\n')]);
    const before = h.files();
    const error = await expectCode(rewinder.cascade(h.session.id, turn.messageId), 'SNAPSHOT_MISSING');
    expect(error.message).toContain('workspace:z.txt');
    expect(h.files()).toEqual(before);
    expect(await h.store.listJournals()).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ strategy: 'unavailable', error: expect.objectContaining({ code: 'SNAPSHOT_MISSING' }) })]);
  });

  it('refuses bad input with typed errors and changes nothing', async () => {
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'x\n');
    const reply = await h.store.appendMessage({ sessionId: h.session.id, role: 'assistant', kind: 'reply', parts: [{ type: 'text', text: 'ok' }] });
    await expectCode(rewinder.restoreCheckpoint('nope'), 'INVALID_ARGUMENT');
    await expectCode(rewinder.restoreCheckpoint('chk_0000000000000000000000000z'), 'CHECKPOINT_NOT_FOUND');
    await expectCode(rewinder.restoreLatest('ses_0000000000000000000000000z'), 'SESSION_NOT_FOUND');
    await expectCode(rewinder.cascade(h.session.id, reply.message.id), 'NOT_A_USER_MESSAGE');
    await expectCode(rewinder.rollbackTurn('trn_0000000000000000000000000z'), 'TURN_NOT_FOUND');
    await expectCode(rewinder.redo(h.session.id, 'jnl_0000000000000000000000000z'), 'REWIND_NOT_FOUND');
    expect(h.read('a.txt')).toBe('x\n');
    expect(await h.store.listJournals()).toEqual([]);
  });

  it('never writes outside the workspace: a checkpoint path climbing out is refused as a whole', async () => {
    const turn = await h.turn();
    const hash = await h.blobs.put(Buffer.from('evil\n'));
    const [bad] = await h.store.addCheckpoints([
      {
        sessionId: h.session.id,
        turnId: turn.turnId,
        anchorMessageId: turn.messageId,
        op: 'modify',
        path: 'workspace:../outside.txt',
        beforeHash: hash,
        afterHash: hash,
        source: 'tool',
      },
    ]);
    const error = await expectCode(rewinder.restoreCheckpoint(bad!.id), 'REWIND_CONFLICT');
    expect(error.message).toContain('outside');
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${h.dir}/outside.txt`)).toBe(false);
  });

  it('a checkpoint that kept no content cannot be restored directly: SNAPSHOT_MISSING, nothing written', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(h.path('cache'));
    h.put('cache/x', 'x');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a\n');
    await h.recordSkipped(turn, 'cache', 'too_large');
    const error = await expectCode(rewinder.cascade(h.session.id, turn.messageId), 'SNAPSHOT_MISSING');
    expect(error.message).toContain('too_large');
    expect(h.read('a.txt')).toBe('a\n');
  });
});
