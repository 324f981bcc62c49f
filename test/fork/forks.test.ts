import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyToolEdit, applyToolWrite } from '../../src/checkpoint/index.js';
import { errorCode } from '../../src/checkpoint/fixtures/capture-fixture.js';
import { SessionForker, SIDE_CHAT_REMINDER, type ForkEvents } from '../../src/fork/index.js';
import { listRewindTargets, modelView, uiView } from '../../src/history/index.js';
import { recordSavePoint, FileRewinder } from '../../src/rewind/index.js';
import { createForkFixture, type ForkFixture } from './fork-fixture.js';

let fx: ForkFixture;
let forker: SessionForker;
let events: Array<ForkEvents['session-fork']>;
beforeEach(async () => {
  fx = await createForkFixture();
  forker = new SessionForker({ store: fx.store, blobs: fx.blobs });
  events = [];
  forker.events.on('session-fork', (event) => events.push(event));
});
afterEach(async () => fx.cleanup());

const read = (path: string) => readFileSync(join(fx.root, path), 'utf8');
const ids = async (sessionId: string) => (await fx.store.history(sessionId, { parts: 'none' })).map((message) => message.id);

describe('fork from a checkpoint', () => {
  it('refuses with the stable error when the session has no checkpoint yet, and changes nothing', async () => {
    await fx.turn('hello');
    const error = (await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId }).then(
      () => null,
      (caught: unknown) => caught,
    )) as Error & { code: string };
    expect(error.code).toBe('NO_WORKSPACE_CHECKPOINT');
    expect(error.message).toBe('No workspace checkpoint is available yet.');
    expect(await fx.store.listSessions({ parentSessionId: fx.sessionId })).toEqual([]);
    expect(events).toEqual([]);
  });

  it('ends before the turn of the checkpoint and undoes that change and every later one, only after confirmation', async () => {
    const first = await fx.turn('create a', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    const second = await fx.turn('edit a, add b', async (context) => {
      await applyToolEdit(context, { path: 'a.txt', oldString: 'a1', newString: 'a2' });
      await applyToolWrite(context, { path: 'b.txt', content: 'b1\n' });
    });
    await fx.turn('edit b', async (context) => {
      await applyToolWrite(context, { path: 'b.txt', content: 'b2\n' });
    });
    const [edit] = await fx.store.listCheckpoints(fx.sessionId, { turnId: second.turnId });

    const preview = await forker.previewFork({ from: 'checkpoint', sessionId: fx.sessionId, checkpointId: edit!.id });
    expect(preview.requiresConfirmation).toBe(true);
    expect(preview.at).toBe(first.replyId);
    expect(preview.files!.files.map((file) => [file.path, file.action, file.status]).sort()).toEqual([
      ['workspace:a.txt', 'write', 'safe'],
      ['workspace:b.txt', 'delete', 'safe'],
    ]);
    // Without confirm: refused, no file changed, no child.
    expect(await errorCode(() => forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, checkpointId: edit!.id }))).toBe('FORK_NEEDS_CONFIRMATION');
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2\n', 'b2\n']);
    expect(await fx.store.listSessions({ parentSessionId: fx.sessionId })).toEqual([]);

    const result = await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, checkpointId: edit!.id, confirm: true, preview });
    expect(read('a.txt')).toBe('a1\n');
    expect(() => read('b.txt')).toThrow();
    expect(result.session.forkedFromMessageId).toBe(first.replyId);
    const childPath = await ids(result.session.id);
    expect(childPath.slice(0, 2)).toEqual([first.inputId, first.replyId]);
    expect(childPath).not.toContain(second.inputId);
    expect(result.session.workdir).toBe(fx.root);

    // The overwritten content is recoverable: the rewind is the parent's, and redo brings it back.
    const rewinder = new FileRewinder({ store: fx.store, blobs: fx.blobs });
    const [recorded] = await rewinder.listRewinds(fx.sessionId);
    expect(recorded!.rewindId).toBe(result.fileRewind!.rewindId);
    await rewinder.redo(fx.sessionId, result.fileRewind!.rewindId!);
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2\n', 'b2\n']);
    expect(events.map((event) => [event.from, event.strategy, event.fileRewindId])).toEqual([['checkpoint', 'shared', result.fileRewind!.rewindId]]);
  });

  it('/fork latest takes the newest checkpoint; a conflict blocks even with confirm, and force passes it', async () => {
    await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    const two = await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a2\n' });
    });
    writeFileSync(join(fx.root, 'a.txt'), 'edited by a person\n');
    const preview = await forker.previewFork({ from: 'checkpoint', sessionId: fx.sessionId, checkpointId: 'latest' });
    expect(preview.at).not.toBe(two.inputId);
    expect(preview.files!.files[0]!.status).toBe('external_modified');
    expect(await errorCode(() => forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, confirm: true }))).toBe('REWIND_CONFLICT');
    expect(read('a.txt')).toBe('edited by a person\n');
    const forced = await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, confirm: true, resolutions: { 'workspace:a.txt': 'force' } });
    expect(read('a.txt')).toBe('a1\n');
    await new FileRewinder({ store: fx.store, blobs: fx.blobs }).redo(fx.sessionId, forced.fileRewind!.rewindId!);
    expect(read('a.txt')).toBe('edited by a person\n');
  });
});

describe('fork from a message', () => {
  it('keeps the target turn and undoes only later changes, each file to its content before its first later change', async () => {
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a2\n' });
      await applyToolWrite(context, { path: 'c.txt', content: 'c\n' });
    });
    await fx.turn('three', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a3\n' });
    });
    const result = await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId, confirm: true });
    expect(read('a.txt')).toBe('a1\n'); // the target turn's own change stays
    expect(() => read('c.txt')).toThrow();
    expect((await ids(result.session.id)).slice(0, 2)).toEqual([one.inputId, one.replyId]);
    expect(result.fileRewind!.checkpointIds).toHaveLength(3);
  });

  it('with no change after the fork point is a pure conversation fork (no confirmation needed)', async () => {
    await fx.turn('one');
    const two = await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a\n' });
    });
    const result = await forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: two.replyId });
    expect(result.fileRewind).toBeNull();
    expect(read('a.txt')).toBe('a\n');
    expect(result.session.title).toBe('Fork of Main');
    expect(result.session.kind).toBe('fork');
  });

  it('refuses while the parent runs a turn, changing nothing', async () => {
    const one = await fx.turn('one');
    const { message } = await fx.store.appendMessage({ sessionId: fx.sessionId, role: 'user', parts: [{ type: 'text', text: 'running' }] });
    await fx.store.createTurn({ sessionId: fx.sessionId, userMessageId: message.id });
    expect(await errorCode(() => forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: one.replyId }))).toBe('PARENT_TURN_RUNNING');
    expect(await errorCode(() => forker.fork({ from: 'checkpoint', sessionId: fx.sessionId }))).toBe('PARENT_TURN_RUNNING');
    expect(await fx.store.listSessions({ parentSessionId: fx.sessionId })).toEqual([]);
  });

  it("forkFrom(turn, name) starts at the turn's last save point by default, or at A", async () => {
    const one = await fx.turn('one');
    const { message: proposal } = await fx.store.appendMessage({
      sessionId: fx.sessionId,
      role: 'assistant',
      turnId: one.turnId,
      parts: [{ type: 'text', text: 'plan' }],
    });
    await recordSavePoint(fx.store, { sessionId: fx.sessionId, turnId: one.turnId, point: 'A', step: 1, messageId: one.inputId });
    await recordSavePoint(fx.store, { sessionId: fx.sessionId, turnId: one.turnId, point: 'B', step: 1, messageId: one.replyId });
    const planB = await forker.forkFrom({ sessionId: fx.sessionId, turn: 1, name: 'plan-b' });
    expect(planB.session.title).toBe('plan-b');
    expect(planB.session.forkedFromMessageId).toBe(one.replyId);
    const atA = await forker.forkFrom({ sessionId: fx.sessionId, turn: one.turnId, name: 'plan-c', point: 'A' });
    expect(atA.session.forkedFromMessageId).toBe(one.inputId);
    expect(proposal.id).not.toBe(planB.session.forkedFromMessageId);
    expect(await errorCode(() => forker.forkFrom({ sessionId: fx.sessionId, turn: 9, name: 'x' }))).toBe('TURN_NOT_FOUND');
  });
});

describe('stable fork', () => {
  it('only at the final, non-error reply of a completed turn whose boundary is contiguous on the active path; files untouched', async () => {
    const one = await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    const two = await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a2\n' });
    });
    const failed = await fx.turn('three', undefined, { status: 'error' });
    expect(await errorCode(() => forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.inputId }))).toBe('NOT_A_STABLE_BOUNDARY');
    expect(await errorCode(() => forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: failed.replyId }))).toBe('NOT_A_STABLE_BOUNDARY');

    const result = await forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId });
    expect(read('a.txt')).toBe('a2\n');
    expect(result.fileRewind).toBeNull();
    expect((await ids(result.session.id)).slice(0, 2)).toEqual([one.inputId, one.replyId]);

    // Rewind the parent past turn two: its boundary is no longer on the active path.
    await fx.store.moveHead({ sessionId: fx.sessionId, to: one.replyId, reason: 'rewind', bumpGeneration: true });
    expect(await errorCode(() => forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: two.replyId }))).toBe('NOT_A_STABLE_BOUNDARY');
  });

  it('a turn without a pinned boundary is refused', async () => {
    const { message: input } = await fx.store.appendMessage({ sessionId: fx.sessionId, role: 'user', parts: [{ type: 'text', text: 'q' }] });
    const turn = await fx.store.createTurn({ sessionId: fx.sessionId, userMessageId: input.id });
    const { message: reply } = await fx.store.appendMessage({
      sessionId: fx.sessionId,
      role: 'assistant',
      turnId: turn.id,
      parts: [{ type: 'text', text: 'a' }],
    });
    await fx.store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
    expect(await errorCode(() => forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: reply.id }))).toBe('NOT_A_STABLE_BOUNDARY');
  });
});

describe('side chat', () => {
  it('inherits the active path model-only, appends the hidden reminder, and starts with an empty screen', async () => {
    const one = await fx.turn('one');
    const side = await forker.fork({ from: 'side-chat', sessionId: fx.sessionId });
    expect(side.session.kind).toBe('side_chat');
    expect(side.session.title).toBe('Selection side chat');
    expect(side.session.forkedFromMessageId).toBe(one.replyId);
    const path = await fx.store.history(side.session.id);
    expect(uiView(path, { startAfter: side.session.forkedFromMessageId })).toEqual([]);
    const model = modelView(path);
    expect(model.map((message) => message.id).slice(0, 2)).toEqual([one.inputId, one.replyId]);
    expect(model.at(-1)!.parts[0]!.content!.text).toBe(SIDE_CHAT_REMINDER);
    expect(model.at(-1)!.metadata.visibility).toBe('model');
    expect(await listRewindTargets(fx.store, side.session.id)).toEqual([]);
  });

  it("while the parent runs a turn, stops at that turn's user input (no reply being generated), and carries the question", async () => {
    await fx.turn('one');
    const { message: input } = await fx.store.appendMessage({ sessionId: fx.sessionId, role: 'user', parts: [{ type: 'text', text: 'long task' }] });
    const running = await fx.store.createTurn({ sessionId: fx.sessionId, userMessageId: input.id });
    await fx.store.appendMessage({
      sessionId: fx.sessionId,
      role: 'assistant',
      turnId: running.id,
      status: 'streaming',
      parts: [{ type: 'text', text: 'half a reply' }],
    });
    const side = await forker.fork({ from: 'side-chat', sessionId: fx.sessionId, question: 'what is a monad?' });
    expect(side.session.forkedFromMessageId).toBe(input.id);
    const path = await fx.store.history(side.session.id);
    expect(path.some((message) => message.status === 'streaming')).toBe(false);
    const ui = uiView(path, { startAfter: side.session.forkedFromMessageId });
    expect(ui.map((message) => message.parts[0]!.content!.text)).toEqual(['what is a monad?']);
    expect((await listRewindTargets(fx.store, side.session.id)).map((target) => target.text)).toEqual(['what is a monad?']);
  });
});

describe('every fork', () => {
  it('adds a model-only note and a ui-only divider; parent, root trace and ancestors are shared', async () => {
    const one = await fx.turn('one');
    const child = await forker.fork({ from: 'stable', sessionId: fx.sessionId, messageId: one.replyId });
    const grandchild = await forker.fork({ from: 'message', sessionId: child.session.id, messageId: one.replyId, title: 'deeper' });
    expect(grandchild.session.parentSessionId).toBe(child.session.id);
    expect(grandchild.session.rootSessionId).toBe(fx.sessionId);
    expect(grandchild.session.title).toBe('deeper');
    const path = await fx.store.history(child.session.id);
    const notes = path.slice(2);
    expect(notes.map((message) => [message.kind, message.metadata.visibility])).toEqual([
      ['fork_note', 'model'],
      ['fork_note', 'ui'],
    ]);
    expect(modelView(path).map((message) => message.id)).not.toContain(notes[1]!.id);
    expect(uiView(path).map((message) => message.id)).not.toContain(notes[0]!.id);
    // Shared, not copied: the same message rows.
    expect(path[0]!.id).toBe(one.inputId);
    expect(path[0]!.sessionId).toBe(fx.sessionId);
  });

  it('is idempotent: the same command id returns the same child and does nothing again', async () => {
    await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a2\n' });
    });
    const first = await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, confirm: true, commandId: 'cmd-1' });
    writeFileSync(join(fx.root, 'a.txt'), 'a2\n'); // even with the file changed back, a replay touches nothing
    const again = await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, confirm: true, commandId: 'cmd-1' });
    expect(again.session.id).toBe(first.session.id);
    expect(again.created).toBe(false);
    expect(read('a.txt')).toBe('a2\n');
    expect(await fx.store.listSessions({ parentSessionId: fx.sessionId })).toHaveLength(1);
    expect(await new FileRewinder({ store: fx.store }).listRewinds(fx.sessionId)).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it('a replay after the files were rewound but before the child committed finishes the fork without touching files again', async () => {
    await fx.turn('one', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a1\n' });
    });
    await fx.turn('two', async (context) => {
      await applyToolWrite(context, { path: 'a.txt', content: 'a2\n' });
    });
    // First attempt: the file rewind commits, then the child's commit fails (as a crash between the two would).
    const store = fx.store;
    const original = store.forkSession.bind(store);
    let failOnce = true;
    store.forkSession = async (input) => {
      if (failOnce) {
        failOnce = false;
        throw new Error('crash between the two commits');
      }
      return original(input);
    };
    await expect(forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, confirm: true, commandId: 'cmd-2' })).rejects.toThrow('crash');
    expect(read('a.txt')).toBe('a1\n');
    writeFileSync(join(fx.root, 'a.txt'), 'later\n');
    const finished = await forker.fork({ from: 'checkpoint', sessionId: fx.sessionId, confirm: true, commandId: 'cmd-2' });
    store.forkSession = original;
    expect(finished.created).toBe(true);
    expect(read('a.txt')).toBe('later\n');
    expect((await new FileRewinder({ store }).listRewinds(fx.sessionId)).length).toBe(1);
  });

  it('bad input is refused with typed errors and changes nothing', async () => {
    await fx.turn('one');
    expect(await errorCode(() => forker.fork({ from: 'nowhere', sessionId: fx.sessionId } as never))).toBe('INVALID_ARGUMENT');
    expect(await errorCode(() => forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: '' }))).toBe('INVALID_ARGUMENT');
    expect(await errorCode(() => forker.fork({ from: 'message', sessionId: fx.sessionId, messageId: 'msg_nope' }))).toBe('MESSAGE_NOT_FOUND');
    expect(await errorCode(() => forker.fork({ from: 'side-chat', sessionId: 'ses_nope' }))).toBe('SESSION_NOT_FOUND');
    expect(await errorCode(() => forker.fork({ from: 'side-chat', sessionId: fx.sessionId, workspace: { mode: 'isolated', dir: 'relative/dir' } }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(await fx.store.listSessions({ parentSessionId: fx.sessionId })).toEqual([]);
  });
});
