import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/blobs/index.js';
import { applyToolWrite, openCaptureContext } from '../../src/checkpoint/index.js';
import { SessionForker, pinTurnBoundary } from '../../src/fork/index.js';
import { SqliteStore, type Store } from '../../src/store/index.js';

describe('isolated fork of a session with several roots', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-fork-roots-'));
    store = await SqliteStore.open({ path: join(dir, 'store', 'w.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every tracked root at the fork point and keeps untracked roots shared', async () => {
    for (const name of ['ws', 'notes', 'logs']) mkdirSync(join(dir, name));
    writeFileSync(join(dir, 'notes', 'plan.md'), 'plan v1\n');
    writeFileSync(join(dir, 'logs', 'run.log'), 'log\n');
    const roots = [
      { name: 'notes', dir: join(dir, 'notes'), kind: 'custom' },
      { name: 'logs', dir: join(dir, 'logs'), kind: 'logs' },
    ];
    const blobs = new BlobStore(store);
    const session = await store.createSession({ workdir: join(dir, 'ws'), metadata: { roots } });
    const turn = async (text: string, writes: Array<{ path: string; root?: string; content: string }>) => {
      const { message } = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text }] });
      const record = await store.createTurn({ sessionId: session.id, userMessageId: message.id });
      const context = await openCaptureContext({ store, blobs, sessionId: session.id, turnId: record.id });
      for (const write of writes)
        await applyToolWrite(
          context,
          write.root ? { path: write.path, root: write.root, content: write.content } : { path: write.path, content: write.content },
        );
      const { message: reply } = await store.appendMessage({
        sessionId: session.id,
        role: 'assistant',
        turnId: record.id,
        parts: [{ type: 'text', text: 'ok' }],
      });
      await pinTurnBoundary(store, record.id);
      await store.updateTurn(record.id, { status: 'complete', endedAt: Date.now() });
      return reply.id;
    };
    const forkPoint = await turn('one', [
      { path: 'a.txt', content: 'a1\n' },
      { path: 'plan.md', root: 'notes', content: 'plan v2\n' },
    ]);
    await turn('two', [
      { path: 'plan.md', root: 'notes', content: 'plan v3\n' },
      { path: 'a.txt', content: 'a2\n' },
    ]);

    const target = join(dir, 'alt');
    const { session: child } = await new SessionForker({ store, blobs }).fork({
      from: 'message',
      sessionId: session.id,
      messageId: forkPoint,
      workspace: { mode: 'isolated', dir: target },
    });
    expect(readFileSync(join(target, 'a.txt'), 'utf8')).toBe('a1\n');
    expect(readFileSync(join(`${target}.roots`, 'notes', 'plan.md'), 'utf8')).toBe('plan v2\n');
    expect(readFileSync(join(dir, 'notes', 'plan.md'), 'utf8')).toBe('plan v3\n');
    expect(existsSync(join(`${target}.roots`, 'logs'))).toBe(false);
    expect(child.metadata.roots).toEqual([
      { name: 'notes', dir: join(`${target}.roots`, 'notes'), kind: 'custom' },
      { name: 'logs', dir: join(dir, 'logs'), kind: 'logs' },
    ]);
  });
});
