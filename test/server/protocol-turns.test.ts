import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type ServerFixture } from './server-harness.js';

const STEPS = [
  { text: 'Writing a.', toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'one\ntwo\nthree\n' } }] },
  { text: 'Wrote a.txt.' },
  { toolCalls: [{ toolName: 'edit', input: { path: 'a.txt', oldString: 'two', newString: 'TWO' } }] },
  { text: 'Edited a.txt.' },
  { text: 'Retried reply.' },
  { text: 'Edited reply.' },
  { text: 'Side answer.' },
];

let fx: ServerFixture;
let sessionId: string;

async function turn(text: string) {
  const started = await fx.client.ok('turn.send', { sessionId, text });
  const end = await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
  return { ...started, end };
}

describe('the protocol over a real WebSocket: turns, pages, rewinds, undo, edit, retry, forks, side chats', () => {
  beforeAll(async () => {
    fx = await startFixture(STEPS);
    const created = await fx.client.ok('sessions.create', { workdir: fx.project, title: 'Greeting' });
    sessionId = created.session.id;
    await fx.client.ok('session.subscribe', { sessionId });
  });
  afterAll(async () => fx?.close());

  it('streams a turn: turn.start, message parts, tool calls, a checkpoint, turn.end with its file summary', async () => {
    const first = await turn('make a');
    expect(first.end.status).toBe('complete');
    expect(first.end.summary.files).toMatchObject([{ displayPath: 'a.txt', op: 'create', added: 3, removed: 0 }]);
    const types = fx.client.events.filter((event) => event.turnId === first.turnId).map((event) => event.type);
    expect(types[0]).toBe('turn.start');
    expect(types).toEqual(expect.arrayContaining(['message.part', 'tool.start', 'checkpoint.create', 'tool.end', 'message.finish', 'turn.end']));
    expect(readFileSync(join(fx.project, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    const summary = await fx.client.ok('turn.summary', { turnId: first.turnId });
    expect(summary.totals).toEqual({ files: 1, added: 3, removed: 0 });
  });

  it('pages the conversation from the newest, tool outputs by size only, loaded one part at a time', async () => {
    await turn('edit a');
    const page = await fx.client.ok('conversation.page', { sessionId, limit: 3 });
    expect(page.total).toBeGreaterThan(3);
    expect(page.messages).toHaveLength(3);
    expect(page.messages.at(-1).parts).toEqual([{ type: 'text', text: 'Edited a.txt.' }]);
    expect(page.messages.at(-1).actions).toMatchObject({ retry: true, fork: true, edit: false });
    const older = await fx.client.ok('conversation.page', { sessionId, limit: 50, before: page.nextBefore });
    expect(older.nextBefore).toBeNull();
    expect(older.messages.length + page.messages.length).toBe(page.total);
    const all = [...older.messages, ...page.messages];
    const tool = all.find((message) => message.role === 'tool');
    expect(tool.parts[0]).toMatchObject({ type: 'tool-result', toolName: 'write', loaded: false });
    expect(tool.parts[0].size).toBeGreaterThan(0);
    expect(JSON.stringify(tool.parts)).not.toContain('output');
    const part = await fx.client.ok('message.part', { messageId: tool.id, index: 0 });
    expect(part.content).toMatchObject({ type: 'tool-result', toolName: 'write', output: expect.anything() });
    const inputs = all.filter((message) => message.role === 'user');
    expect(inputs.map((message) => message.actions.rewind)).toEqual([true, true]);
    expect(inputs.map((message) => message.actions.edit)).toEqual([false, true]);
  });

  it('lists the /rewind targets: every input, oldest first, with its file changes', async () => {
    const list = await fx.client.ok('rewind.list', { sessionId });
    expect(list.targets.map((target: { text: string }) => target.text)).toEqual(['make a', 'edit a']);
    expect(list.targets.map((target: { fileChanges: number }) => target.fileChanges)).toEqual([1, 1]);
  });

  it('undo: a conflict shown with its merge diff, resolved by merge, applied; redo brings it back', async () => {
    const path = join(fx.project, 'a.txt');
    writeFileSync(path, 'one\nTWO\nthree\nfour\n');
    const list = await fx.client.ok('rewind.list', { sessionId });
    const refused = await fx.client.ok('undo.preview', { sessionId, lastTurn: true });
    expect(refused.preview.canApply).toBe(false);
    const file = refused.preview.files[0];
    expect(file).toMatchObject({ status: 'external_modified', mergeAvailable: true });
    expect(refused.diffs[file.path].merge).toContain('-TWO');
    expect(refused.diffs[file.path].undo).toContain('-four');
    const before = readFileSync(path, 'utf8');
    const applyUnresolved = await fx.client.call('undo.apply', { sessionId, previewId: refused.previewId });
    expect(applyUnresolved.error?.data.code).toBe('REWIND_CONFLICT');
    expect(readFileSync(path, 'utf8')).toBe(before);
    const merged = await fx.client.ok('undo.preview', { sessionId, lastTurn: true, resolutions: { 'a.txt': 'merge' } });
    expect(merged.preview.canApply).toBe(true);
    const applied = await fx.client.ok('undo.apply', { sessionId, previewId: merged.previewId });
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    await fx.client.waitFor((event) => event.type === 'rewind' && event.result?.files?.rewindId === applied.files.rewindId);
    const status = await fx.client.ok('rewind.status', { sessionId });
    expect(status.redo.fileRewinds[0].rewindId).toBe(applied.files.rewindId);
    await fx.client.ok('redo.apply', { sessionId, rewindId: applied.files.rewindId });
    expect(readFileSync(path, 'utf8')).toBe('one\nTWO\nthree\nfour\n');
    expect(list.targets).toHaveLength(2);
  });

  it('retry runs the last turn again; edit replaces the last input and runs it', async () => {
    const page = await fx.client.ok('conversation.page', { sessionId });
    const reply = page.messages.at(-1);
    const retried = await fx.client.ok('retry', { sessionId, messageId: reply.id });
    await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === retried.turnId);
    const afterRetry = await fx.client.ok('conversation.page', { sessionId });
    expect(afterRetry.messages.at(-1).parts).toEqual([{ type: 'text', text: 'Retried reply.' }]);
    const lastInput = afterRetry.messages.filter((message: { actions: { edit: boolean } }) => message.actions.edit)[0];
    const edited = await fx.client.ok('edit', { sessionId, messageId: lastInput.id, text: 'edit a, gently' });
    await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === edited.turnId);
    const list = await fx.client.ok('rewind.list', { sessionId });
    expect(list.targets.map((target: { text: string }) => target.text)).toEqual(['make a', 'edit a, gently']);
    const tree = await fx.client.ok('session.tree', { sessionId });
    // make a → (edit a, edit a [retried], edit a, gently): three branches under the first input.
    const first = tree.nodes.find((node: { text: string }) => node.text === 'make a');
    expect(tree.nodes.filter((node: { parentMessageId: string }) => node.parentMessageId === first.messageId)).toHaveLength(3);
    expect(tree.nodes.filter((node: { onPath: boolean }) => node.onPath).map((node: { text: string }) => node.text)).toEqual(['make a', 'edit a, gently']);
  });

  it('a conversation rewind hands back the original draft; the list then ends before it', async () => {
    const list = await fx.client.ok('rewind.list', { sessionId });
    const target = list.targets.at(-1);
    const result = await fx.client.ok('rewind.run', { sessionId, messageId: target.messageId, scope: 'conversation' });
    expect(result.conversation.draft).toBe('edit a, gently');
    const after = await fx.client.ok('rewind.list', { sessionId });
    expect(after.targets.map((item: { text: string }) => item.text)).toEqual(['make a']);
    await fx.client.ok('redo.apply', { sessionId, conversation: true });
    expect((await fx.client.ok('rewind.list', { sessionId })).targets).toHaveLength(2);
  });

  it('forks a final reply (stable, isolated: its path returned), and a side chat starts empty and answers', async () => {
    const page = await fx.client.ok('conversation.page', { sessionId });
    const final = page.messages.findLast((message: { actions: { fork: boolean } }) => message.actions.fork);
    const fork = await fx.client.ok('fork.create', { from: 'stable', sessionId, messageId: final.id, workspace: { mode: 'isolated' } });
    expect(fork.workdir).not.toBe(fx.project);
    expect(readFileSync(join(fork.workdir, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\n');
    await fx.client.waitFor((event) => event.type === 'fork' && event.result.session.id === fork.session.id);
    const side = await fx.client.ok('side.start', { sessionId });
    expect(side.session.kind).toBe('side_chat');
    expect((await fx.client.ok('conversation.page', { sessionId: side.session.id })).messages).toEqual([]);
    await fx.client.ok('session.subscribe', { sessionId: side.session.id });
    const asked = await fx.client.ok('side.ask', { sessionId: side.session.id, text: 'why?' });
    await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === asked.turnId);
    const sidePage = await fx.client.ok('conversation.page', { sessionId: side.session.id });
    expect(sidePage.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    const family = await fx.client.ok('session.family', { sessionId });
    expect(family.root.children.map((child: { session: { kind: string } }) => child.session.kind).sort()).toEqual(['fork', 'side_chat']);
    const notSide = await fx.client.call('side.ask', { sessionId, text: 'x' });
    expect(notSide.error?.data.code).toBe('NOT_A_SIDE_CHAT');
  });
});
