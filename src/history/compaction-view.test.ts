import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageWithParts } from '../model/index.js';
import { SqliteStore, type Store } from '../store/index.js';
import { modelView, uiView } from './compaction-view.js';
import { listRewindTargets } from './rewind-targets.js';

const label = (messages: MessageWithParts[]) => messages.map((message) => message.parts[0]?.content?.text);

describe('compaction views and the rewind target list', () => {
  let dir: string;
  let store: Store;
  let sessionId: string;
  const ids = new Map<string, string>();

  async function add(
    name: string,
    role: 'user' | 'assistant',
    extra: Partial<{ kind: 'summary' | 'meta' | 'task_notification' | 'fork_note'; metadata: Record<string, string | Record<string, string>> }> = {},
  ) {
    const { message } = await store.appendMessage({
      sessionId,
      role,
      parts: [{ type: 'text', text: name }],
      ...(extra.kind ? { kind: extra.kind } : {}),
      ...(extra.metadata ? { metadata: extra.metadata } : {}),
    });
    ids.set(name, message.id);
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-compaction-'));
    store = await SqliteStore.open({ path: join(dir, 'store.db') });
    sessionId = (await store.createSession()).id;
    // u1 a1 u2 a2 u3 a3 c1 u4 a4 c2 u5 a5, where c1 replaces u1..a1 and c2 replaces u1..a2 (and c1)
    for (const turn of [1, 2, 3]) {
      await add(`u${turn}`, 'user');
      await add(`a${turn}`, 'assistant');
    }
    await add('c1', 'user', { kind: 'summary', metadata: { covers: { to: ids.get('a1')! } } });
    await add('hook', 'user', { kind: 'meta', metadata: { visibility: 'model' } });
    await add('u4', 'user');
    await add('a4', 'assistant');
    await add('c2', 'user', { kind: 'summary', metadata: { covers: { to: ids.get('a2')! } } });
    await add('task done', 'user', { kind: 'task_notification' });
    await add('u5', 'user');
    await add('a5', 'assistant');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the model sees the last summary, then what follows its range; the UI agrees minus model-only messages', async () => {
    const path = await store.history(sessionId);
    expect(label(modelView(path))).toEqual(['c2', 'u3', 'a3', 'hook', 'u4', 'a4', 'task done', 'u5', 'a5']);
    expect(label(uiView(path))).toEqual(['c2', 'u3', 'a3', 'u4', 'a4', 'task done', 'u5', 'a5']);
  });

  it('after rewinding to u5 both views read c2 u3 a3 u4 a4', async () => {
    await store.moveHead({ sessionId, to: ids.get('task done')!, reason: 'rewind', bumpGeneration: true });
    const path = await store.history(sessionId);
    expect(label(uiView(path)).filter((text) => text !== 'task done')).toEqual(['c2', 'u3', 'a3', 'u4', 'a4']);
    expect(label(modelView(path)).filter((text) => text !== 'task done' && text !== 'hook')).toEqual(['c2', 'u3', 'a3', 'u4', 'a4']);
  });

  it('rewinding into a compacted range cuts the summaries off and brings the plain path back', async () => {
    await store.moveHead({ sessionId, to: ids.get('a3')!, reason: 'rewind' });
    expect(label(modelView(await store.history(sessionId)))).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
    await store.moveHead({ sessionId, to: ids.get('c1')!, reason: 'redo' });
    expect(label(modelView(await store.history(sessionId)))).toEqual(['c1', 'u2', 'a2', 'u3', 'a3']);
  });

  it('lists every typed input, compacted ones included and flagged, and loads no other payload', async () => {
    const loaded: string[] = [];
    const recording = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'getMessages') {
          return (messageIds: string[], options?: object) => {
            loaded.push(...messageIds);
            return target.getMessages(messageIds, options);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const targets = await listRewindTargets(recording, sessionId);
    expect(targets.map((target) => [target.text, target.compacted])).toEqual([
      ['u1', true],
      ['u2', true],
      ['u3', false],
      ['u4', false],
      ['u5', false],
    ]);
    expect(loaded).toEqual(['u1', 'u2', 'u3', 'u4', 'u5'].map((name) => ids.get(name)));
  });

  it('a side chat lists only what was asked in it', async () => {
    const { session: side } = await store.forkSession({ parentSessionId: sessionId, at: ids.get('u5')!, kind: 'side_chat' });
    expect(await listRewindTargets(store, side.id)).toEqual([]);
    await store.appendMessage({ sessionId: side.id, role: 'user', parts: [{ type: 'text', text: 'quick question' }] });
    expect((await listRewindTargets(store, side.id)).map((target) => target.text)).toEqual(['quick question']);
    expect(label(uiView(await store.history(side.id), { startAfter: ids.get('u5')! }))).toEqual(['quick question']);
  });
});
