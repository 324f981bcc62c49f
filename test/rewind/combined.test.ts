import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { applyToolWrite, captureExec, openCaptureContext } from '../../src/checkpoint/index.js';
import { editUserQuery, retryTurn, rewindSession } from '../../src/rewind/combined/index.js';
import { FileRewinder } from '../../src/rewind/files/index.js';
import { expectCode } from '../../src/store/conformance/index.js';
import { SqliteStore, type Store } from '../../src/store/index.js';

describe('combined rewinds, edit and retry', () => {
  let dir: string;
  let workdir: string;
  let store: Store;
  let blobs: BlobStore;
  let files: FileRewinder;
  let sessionId: string;

  /** One turn: the user asks, the agent writes files with its Write tool, then replies. */
  async function turn(text: string, writes: Record<string, string>, shell?: string) {
    const { message: input } = await store.appendMessage({ sessionId, role: 'user', parts: [{ type: 'text', text }] });
    const record = await store.createTurn({ sessionId, userMessageId: input.id });
    const context = await openCaptureContext({ store, blobs, sessionId, turnId: record.id });
    for (const [path, content] of Object.entries(writes)) await applyToolWrite(context, { path, content, toolCallId: `call-${path}` });
    if (shell) await captureExec(context, () => execFileSync('bash', ['-c', shell], { cwd: workdir }));
    const { message: reply } = await store.appendMessage({ sessionId, role: 'assistant', turnId: record.id, parts: [{ type: 'text', text: `done: ${text}` }] });
    await store.updateTurn(record.id, { status: 'complete' });
    return { input: input.id, reply: reply.id, turnId: record.id };
  }
  const read = (path: string) => (existsSync(join(workdir, path)) ? readFileSync(join(workdir, path), 'utf8') : null);
  const headText = async () => (await store.history(sessionId)).map((message) => message.parts[0]?.content?.text);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-combined-'));
    workdir = join(dir, 'project');
    mkdirSync(workdir);
    store = await SqliteStore.open({ path: join(dir, 'store', 'w.db') });
    blobs = new BlobStore(store);
    files = new FileRewinder({ store, blobs });
    sessionId = (await store.createSession({ workdir })).id;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('both: files and conversation go back together', async () => {
    await turn('make a', { 'a.txt': 'a1' });
    const second = await turn('change a, add b', { 'a.txt': 'a2', 'b.txt': 'b1' });
    const result = await rewindSession(store, files, { sessionId, messageId: second.input, scope: 'both', cascade: true });
    expect(read('a.txt')).toBe('a1');
    expect(read('b.txt')).toBeNull();
    expect(result.conversation?.draft).toBe('change a, add b');
    expect(await headText()).toEqual(['make a', 'done: make a']);
  });

  it('both: when the files cannot be rewound, the conversation does not move', async () => {
    await turn('make a', { 'a.txt': 'a1' });
    const second = await turn('change a', { 'a.txt': 'a2' });
    const blob = await store.getCheckpoint((await store.listCheckpoints(sessionId)).at(-1)!.id);
    await store.blobs.deleteMany([blob.beforeHash!]);
    const before = await headText();
    await expectCode(rewindSession(store, files, { sessionId, messageId: second.input, scope: 'both', cascade: true }), 'SNAPSHOT_MISSING');
    expect(await headText()).toEqual(before);
    expect(read('a.txt')).toBe('a2');
  });

  it('both and cascade refuse a reply as target; conversation scope maps it', async () => {
    const only = await turn('make a', { 'a.txt': 'a1' });
    await expectCode(rewindSession(store, files, { sessionId, messageId: only.reply, scope: 'both' }), 'REWIND_TARGET_NOT_USER_INPUT');
    await expectCode(rewindSession(store, files, { sessionId, messageId: only.reply, scope: 'conversation', cascade: true }), 'REWIND_TARGET_NOT_USER_INPUT');
    const result = await rewindSession(store, files, { sessionId, messageId: only.reply, scope: 'conversation' });
    expect(result.conversation?.targetMessageId).toBe(only.input);
    expect(read('a.txt')).toBe('a1');
  });

  it('edit with workspace rewind restores the turn files, moves the head in the same commit, and starts the new turn', async () => {
    await turn('make a', { 'a.txt': 'a1' });
    const last = await turn('write b', { 'b.txt': 'b1' });
    const started: string[] = [];
    const result = await editUserQuery(store, {
      sessionId,
      messageId: last.input,
      text: 'write c instead',
      workspace: 'rewind',
      files,
      startTurn: async (text, session) => {
        started.push(`${text} @${session.headMessageId}`);
        return 'turn-ran';
      },
    });
    expect(read('b.txt')).toBeNull();
    expect(result.turn).toBe('turn-ran');
    expect(started).toEqual([`write c instead @${(await store.history(sessionId)).at(-1)!.id}`]);
    expect(await headText()).toEqual(['make a', 'done: make a']);
    const moves = await store.listEntries(sessionId, { type: 'head-move' });
    expect(moves.at(-1)?.data.reason).toBe('edit');
  });

  it('edit refuses with distinct codes: unsafe file, uncaptured shell change, nothing to undo, not the last input', async () => {
    const first = await turn('make a', { 'a.txt': 'a1' });
    const noop = { startTurn: async () => 'never' };
    await turn('only talk', {});
    const quiet = (await store.history(sessionId, { roles: ['user'] })).at(-1)!.id;
    await expectCode(editUserQuery(store, { sessionId, messageId: quiet, text: 'x', workspace: 'rewind', files, ...noop }), 'EDIT_NOTHING_TO_UNDO');
    await expectCode(editUserQuery(store, { sessionId, messageId: first.input, text: 'x', files, ...noop }), 'EDIT_NOT_LAST_INPUT');
    const edited = await turn('edit a', { 'a.txt': 'a2' });
    writeFileSync(join(workdir, 'a.txt'), 'changed by a person');
    await expectCode(editUserQuery(store, { sessionId, messageId: edited.input, text: 'x', workspace: 'rewind', files, ...noop }), 'EDIT_FILES_UNSAFE');
    expect(read('a.txt')).toBe('changed by a person');
    const shell = await turn('run a script', {}, 'echo generated > gen.txt');
    await expectCode(editUserQuery(store, { sessionId, messageId: shell.input, text: 'x', workspace: 'rewind', files, ...noop }), 'EDIT_FILES_UNCAPTURED');
    expect(read('gen.txt')).toBe('generated\n');
    expect((await headText()).at(-1)).toBe('done: run a script');
  });

  it('retry reruns the last turn with its original input, and only the last reply', async () => {
    const first = await turn('make a', { 'a.txt': 'a1' });
    const last = await turn('explain', {});
    await expectCode(retryTurn(store, { sessionId, messageId: first.reply, startTurn: async () => null }), 'RETRY_NOT_LAST_REPLY');
    const result = await retryTurn(store, { sessionId, messageId: last.reply, startTurn: async (text) => text.toUpperCase() });
    expect(result.text).toBe('explain');
    expect(result.turn).toBe('EXPLAIN');
    expect(await headText()).toEqual(['make a', 'done: make a']);
  });
});
