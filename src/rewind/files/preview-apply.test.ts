import { mkdirSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
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

const lines = (count: number, change: Record<number, string> = {}) =>
  `${Array.from({ length: count }, (_, index) => change[index] ?? `line ${index}`).join('\n')}\n`;

describe('preview then apply', () => {
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

  it('peels a file edited several times back layer by layer and applies when everything is safe', async () => {
    h.put('a.txt', 'v0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'v1\n');
    await h.recordWrite(turn, 'a.txt', 'v2\n');
    await h.recordWrite(turn, 'b.txt', 'b\n');
    const preview = await rewinder.preview({ sessionId: h.session.id, messageId: turn.messageId });
    expect(preview.canApply).toBe(true);
    expect(preview.files.find((file) => file.path === 'workspace:a.txt')).toMatchObject({
      status: 'safe',
      action: 'write',
      currentHash: h.hash('v2\n'),
      expectedHash: h.hash('v2\n'),
      targetHash: h.hash('v0\n'),
    });
    expect(preview.files.find((file) => file.path === 'workspace:b.txt')).toMatchObject({ status: 'safe', action: 'delete' });
    expect(h.files()).toEqual({ 'a.txt': 'v2\n', 'b.txt': 'b\n' }); // a preview writes nothing
    const result = await rewinder.apply(preview);
    expect(h.files()).toEqual({ 'a.txt': 'v0\n' });
    expect(result.checkpointIds).toEqual(preview.checkpointIds);
    expect(events.map((event) => event.strategy)).toEqual(['file_only']);
  });

  it('reports every unsafe status and refuses to apply', async () => {
    h.put('edited.txt', 'e0\n');
    h.put('gone.txt', `unique ${randomBytes(8).toString('hex')}\n`);
    h.put('bad.txt', randomBytes(64).toString('base64'));
    h.put('dir.txt', 'd0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'edited.txt', 'e1\n');
    const missing = h.read('gone.txt')!;
    await h.recordWrite(turn, 'gone.txt', 'g1\n');
    const corrupt = h.read('bad.txt')!;
    await h.recordWrite(turn, 'bad.txt', 'b1\n');
    await h.recordWrite(turn, 'dir.txt', 'd1\n');
    mkdirSync(h.path('cache'));
    await h.recordSkipped(turn, 'cache');
    h.put('edited.txt', 'person\n');
    await h.store.blobs.deleteMany([h.hash(missing)]);
    h.corruptBlob(Buffer.from(corrupt));
    unlinkSync(h.path('dir.txt'));
    mkdirSync(h.path('dir.txt'));
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    const status = Object.fromEntries(preview.files.map((file) => [file.path, file.status]));
    expect(status).toEqual({
      'workspace:edited.txt': 'external_modified',
      'workspace:gone.txt': 'checkpoint_missing',
      'workspace:bad.txt': 'checkpoint_unreadable',
      'workspace:dir.txt': 'file_read_failed',
      'workspace:cache': 'unsupported_checkpoint',
    });
    expect(preview.canApply).toBe(false);
    expect(preview.blockers).toHaveLength(5);
    const before = h.files();
    await expectCode(rewinder.apply(preview), 'REWIND_CONFLICT');
    expect(h.files()).toEqual(before);
    expect(await h.store.listJournals()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ strategy: 'unavailable', error: { code: 'REWIND_CONFLICT' } });
  });

  it('a resolution resolves a conflict, never a missing snapshot: canApply false, apply refuses and changes nothing', async () => {
    h.put('f.txt', `f0 ${randomBytes(8).toString('hex')}\n`);
    const original = h.read('f.txt')!;
    const turn = await h.turn();
    await h.recordWrite(turn, 'f.txt', 'f1\n');
    await h.recordWrite(turn, 'f.txt', 'f2\n');
    h.put('f.txt', 'person\n');
    h.corruptBlob(Buffer.from(original));
    const forced = { 'workspace:f.txt': 'force' as const };
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: forced });
    expect(preview.files).toEqual([expect.objectContaining({ path: 'workspace:f.txt', status: 'checkpoint_unreadable', resolution: null, action: 'none' })]);
    expect(preview.canApply).toBe(false);
    expect(preview.blockers).toHaveLength(1);
    const entriesBefore = await h.store.listEntries(h.session.id);
    const error = await expectCode(rewinder.apply(preview), 'SNAPSHOT_MISSING');
    expect(error.message).toContain('workspace:f.txt');
    expect(h.files()).toEqual({ 'f.txt': 'person\n' });
    expect(await h.store.listEntries(h.session.id)).toEqual(entriesBefore);
    expect(await rewinder.listRewinds(h.session.id)).toEqual([]);
    expect(await h.store.listJournals()).toEqual([]);
    // A turn rollback does not record the newer layer as undone either when the file cannot be written.
    const rollback = await rewinder.rollbackTurn(turn.turnId);
    expect(rollback).toMatchObject({ ok: false, files: [], checkpointIds: [] });
    expect(h.files()).toEqual({ 'f.txt': 'person\n' });
  });

  it("offers merge only when it applies cleanly, shows the result, and keeps the person's later edits", async () => {
    h.put('code.ts', lines(30));
    h.put('near.ts', lines(10));
    const turn = await h.turn();
    await h.recordWrite(turn, 'code.ts', lines(30, { 5: 'agent change' }));
    await h.recordWrite(turn, 'near.ts', lines(10, { 5: 'agent change' }));
    h.put('code.ts', lines(30, { 5: 'agent change', 25: 'person change' }));
    h.put('near.ts', lines(10, { 5: 'agent change', 6: 'person change next to it' }));
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    const code = preview.files.find((file) => file.path === 'workspace:code.ts')!;
    const near = preview.files.find((file) => file.path === 'workspace:near.ts')!;
    expect(code).toMatchObject({ status: 'external_modified', mergeAvailable: true, mergedText: lines(30, { 25: 'person change' }), resolution: null });
    expect(near).toMatchObject({ status: 'external_modified', mergeAvailable: false, mergedText: null });
    expect(preview.canApply).toBe(false);

    await expectCode(
      rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: { 'workspace:nope.ts': 'force' } }),
      'RESOLUTION_UNKNOWN_PATH',
    );
    const resolved = await rewinder.preview({
      sessionId: h.session.id,
      turnId: turn.turnId,
      resolutions: { 'workspace:code.ts': 'merge', 'workspace:near.ts': 'force' },
    });
    expect(resolved.canApply).toBe(true);
    const result = await rewinder.apply(resolved);
    expect(h.read('code.ts')).toBe(lines(30, { 25: 'person change' }));
    expect(h.read('near.ts')).toBe(lines(10));
    expect(await h.blobs.has(h.hash(lines(10, { 5: 'agent change', 6: 'person change next to it' })))).toBe(true);
    expect(result.files.map((file) => file.resolution).sort()).toEqual(['force', 'merge']);
    await rewinder.redo(h.session.id, result.rewindId!);
    expect(h.read('near.ts')).toBe(lines(10, { 5: 'agent change', 6: 'person change next to it' }));
    expect(h.read('code.ts')).toBe(lines(30, { 5: 'agent change', 25: 'person change' }));
  });

  it('re-validates at apply time: a file changed after the preview is a conflict and nothing is written', async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    await h.recordWrite(turn, 'b.txt', 'b1\n');
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    h.put('b.txt', 'changed meanwhile\n');
    const error = await expectCode(rewinder.apply(preview), 'REWIND_CONFLICT');
    expect(error.message).toContain('workspace:b.txt');
    expect(h.files()).toEqual({ 'a.txt': 'a1\n', 'b.txt': 'changed meanwhile\n' });
    expect(await h.store.listJournals()).toEqual([]);
  });

  it('lists shell-command changes separately and includes them only on request', async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    const shell = await h.recordWrite(turn, 'build.out', 'artifact\n', { source: 'exec' });
    const plain = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });
    expect(plain.shellChanges).toEqual([{ checkpointId: shell.id, op: 'create', path: 'workspace:build.out', toPath: null, included: false }]);
    expect(plain.files.map((file) => file.path)).toEqual(['workspace:a.txt']);
    expect(plain.checkpointIds).not.toContain(shell.id);
    await rewinder.apply(plain);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n', 'build.out': 'artifact\n' });
    const withShell = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, includeShellChanges: true });
    expect(withShell.shellChanges[0]!.included).toBe(true);
    await rewinder.apply(withShell);
    expect(h.files()).toEqual({ 'a.txt': 'a0\n' });
  });

  it('after a restart the applied changes are not offered again, and the rewind can be redone', async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    const applied = await rewinder.apply(await rewinder.preview({ sessionId: h.session.id, messageId: turn.messageId }));
    const store = await h.reopen();
    const again = new FileRewinder({ store });
    const preview = await again.preview({ sessionId: h.session.id, messageId: turn.messageId });
    expect(preview).toMatchObject({ files: [], canApply: false, alreadyRewound: applied.checkpointIds });
    await expectCode(again.apply(preview), 'NOTHING_TO_REWIND');
    h.put('a.txt', 'edited after rewind\n');
    await expectCode(again.redo(h.session.id, applied.rewindId!), 'REWIND_CONFLICT');
    h.put('a.txt', 'a0\n');
    const redo = await again.redo(h.session.id, applied.rewindId!);
    expect(h.read('a.txt')).toBe('a1\n');
    await expectCode(again.redo(h.session.id, applied.rewindId!), 'REWIND_ALREADY_REDONE');
    // The redo put the change back, so it is offered again.
    expect((await again.preview({ sessionId: h.session.id, messageId: turn.messageId })).canApply).toBe(true);
    await again.redo(h.session.id, redo.rewindId!);
    expect(h.read('a.txt')).toBe('a0\n');
  });

  it("two sessions in one directory: the other session's later change is a conflict, never overwritten", async () => {
    h.put('shared.txt', 's0\n');
    const other = await h.store.createSession({ workdir: h.work, title: 'other' });
    const mine = await h.turn('mine');
    await h.recordWrite(mine, 'shared.txt', 'mine\n');
    const theirs = await h.turn('theirs', other);
    await h.recordWrite(theirs, 'shared.txt', 'theirs\n', { session: other });
    const preview = await rewinder.preview({ sessionId: h.session.id, messageId: mine.messageId });
    expect(preview.files).toEqual([expect.objectContaining({ path: 'workspace:shared.txt', status: 'external_modified', currentHash: h.hash('theirs\n') })]);
    await expectCode(rewinder.apply(preview), 'REWIND_CONFLICT');
    expect(h.read('shared.txt')).toBe('theirs\n');
  });

  it("commits the caller's head move in the same transaction, and puts files back when it is refused", async () => {
    h.put('a.txt', 'a0\n');
    const turn = await h.turn();
    await h.recordWrite(turn, 'a.txt', 'a1\n');
    const reply = await h.store.appendMessage({ sessionId: h.session.id, role: 'assistant', kind: 'reply', parts: [{ type: 'text', text: 'done' }] });
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId });

    const refused = await expectCode(
      rewinder.apply(preview, { onCommit: () => ({ headMoves: [{ sessionId: h.session.id, to: null, reason: 'edit', expectedFrom: turn.messageId }] }) }),
      'HEAD_MOVED',
    );
    expect(refused).toBeDefined();
    expect(h.read('a.txt')).toBe('a1\n');
    expect((await h.store.listJournals())[0]!.state).toBe('rolled_back');
    expect(await rewinder.listRewinds(h.session.id)).toEqual([]);

    const result = await rewinder.apply(await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId }), {
      onCommit: () => ({ headMoves: [{ sessionId: h.session.id, to: null, reason: 'edit', expectedFrom: reply.message.id, bumpGeneration: true }] }),
    });
    expect(h.read('a.txt')).toBe('a0\n');
    expect((await h.store.getSession(h.session.id)).headMessageId).toBeNull();
    expect((await h.store.listEntries(h.session.id, { type: 'file-rewind' }))[0]!.data).toMatchObject({
      rewindId: result.rewindId,
      checkpointIds: result.checkpointIds,
    });
  });

  it("merges through several layers of the agent's edits to one file", async () => {
    h.put('long.txt', lines(40));
    const turn = await h.turn();
    await h.recordWrite(turn, 'long.txt', lines(40, { 3: 'agent one' }));
    await h.recordWrite(turn, 'long.txt', lines(40, { 3: 'agent one', 20: 'agent two' }));
    h.put('long.txt', lines(40, { 3: 'agent one', 20: 'agent two', 37: 'person' }));
    const preview = await rewinder.preview({ sessionId: h.session.id, turnId: turn.turnId, resolutions: { 'workspace:long.txt': 'merge' } });
    expect(preview.files[0]).toMatchObject({ status: 'external_modified', resolution: 'merge', mergeAvailable: true, mergedText: lines(40, { 37: 'person' }) });
    await rewinder.apply(preview);
    expect(h.read('long.txt')).toBe(lines(40, { 37: 'person' }));
  });
});
