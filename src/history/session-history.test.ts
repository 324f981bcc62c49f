import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCode } from '../store/conformance/index.js';
import { SqliteStore, type Store } from '../store/index.js';
import { SessionHistory } from './session-history.js';

describe('SessionHistory', () => {
  let dir: string;
  let store: Store;
  let history: SessionHistory;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-history-'));
    store = await SqliteStore.open({ path: join(dir, 'store.db') });
    history = new SessionHistory(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('captures the git branch of a workdir that is a repository', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'feature/rewind', repo]);
    const session = await history.createSession({ title: 'In git', workdir: join(repo, 'src') });
    expect(session.gitBranch).toBe('feature/rewind');
    const plain = await history.createSession({ workdir: dir });
    expect(plain.gitBranch).toBeNull();
  });

  it('refuses bad input with INVALID_ARGUMENT naming the field, and writes nothing', async () => {
    const error = await expectCode(history.createSession({ workdir: 'relative/path' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('session.workdir');
    const session = await history.createSession();
    await expectCode(history.append(session.id, { role: 'robot' as 'user', parts: [] }), 'INVALID_ARGUMENT');
    await expectCode(history.append(session.id, { role: 'user', parts: [{ text: 'no type' } as never] }), 'INVALID_ARGUMENT');
    await expectCode(history.setTitle(session.id, '   '), 'INVALID_ARGUMENT');
    await expectCode(history.history(session.id, { last: -1 }), 'INVALID_ARGUMENT');
    expect(await store.listSessions()).toHaveLength(1);
    expect(await history.history(session.id)).toEqual([]);
  });

  it('emits events only after the change committed, and none for a failed change', async () => {
    const seen: string[] = [];
    history.events.on('message-append', (event) => seen.push(`append:${event.message.id}`));
    history.events.on('head-move', (event) => seen.push(`move:${event.entry.data.to}`));
    history.events.on('session-fork', (event) => seen.push(`fork:${event.at}`));
    const session = await history.createSession();
    history.events.on('message-append', async (event) => {
      // The store already holds the message when listeners run.
      seen.push(`stored:${(await store.findMessage(event.message.id)) !== null}`);
    });
    const message = await history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    await expectCode(history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'stale' }], expectedHeadId: null }), 'HEAD_MOVED');
    await expectCode(history.moveHead({ sessionId: session.id, to: 'msg_nope', reason: 'rewind' }), 'MESSAGE_NOT_FOUND');
    await history.moveHead({ sessionId: session.id, to: null, reason: 'rewind' });
    await history.startSessionAt({ parentSessionId: session.id, at: message.id, kind: 'fork', commandId: 'c1' });
    await history.startSessionAt({ parentSessionId: session.id, at: message.id, kind: 'fork', commandId: 'c1' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.filter((event) => !event.startsWith('stored:'))).toEqual([`append:${message.id}`, 'move:null', `fork:${message.id}`]);
    expect(seen.filter((event) => event.startsWith('stored:'))).toEqual(['stored:true']);
  });

  it('tells whether a message is on the active path', async () => {
    const session = await history.createSession();
    const a = await history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'a' }] });
    const b = await history.append(session.id, { role: 'assistant', parts: [{ type: 'text', text: 'b' }] });
    expect(await history.isOnActivePath(session.id, a.id)).toBe(true);
    await history.moveHead({ sessionId: session.id, to: a.id, reason: 'rewind' });
    expect(await history.isOnActivePath(session.id, b.id)).toBe(false);
    const c = await history.append(session.id, { role: 'assistant', parts: [{ type: 'text', text: 'c' }] });
    expect(await history.isOnActivePath(session.id, c.id)).toBe(true);
    expect(await history.isOnActivePath(session.id, b.id)).toBe(false);
  });
});
