import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageRole, MessageWithParts, PartContent } from '../../model/index.js';
import type { HistoryOptions } from '../store.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * History reads find a path's rows in runs of consecutive seqs and fall back to a link-by-link
 * walk when runs are short (read-path.ts). Each shape below exercises one of those ways; every
 * read is compared with the path rebuilt by following parent links with `getMessage`.
 */
describe('SQLite history reads, whatever the shape of the path', () => {
  let dir: string;
  let store: SqliteStore;
  let counter = 0;
  const roles: MessageRole[] = ['user', 'assistant', 'tool', 'system'];

  /** Parts of varied shapes: escapes, several parts, none, a large one. */
  function partsFor(index: number): PartContent[] {
    switch (index % 5) {
      case 0:
        return [{ type: 'text', text: `m${index} "quoted" \\ back\nslash\t\u0001 é 🌍` }];
      case 1:
        return [
          { type: 'text', text: `a${index}` },
          { type: 'tool-call', toolCallId: `c${index}`, toolName: 'bash', input: { cmd: 'ls', list: [1, 2.5, null, true] } },
        ];
      case 2:
        return [];
      case 3:
        return [
          { type: 'reasoning', text: '' },
          { type: 'text', text: 'x'.repeat(3000) },
        ];
      default:
        return [{ type: 'tool-result', toolCallId: `c${index}`, toolName: 'bash', output: 'o'.repeat(index % 40) }];
    }
  }

  async function append(sessionId: string): Promise<string> {
    const index = counter++;
    const { message } = await store.appendMessage({
      sessionId,
      role: roles[index % roles.length]!,
      parts: partsFor(index),
      ...(index % 7 === 0 ? { metadata: { visibility: 'model', note: `"${index}"` } } : {}),
      ...(index % 3 === 0 ? { turnId: `turn_${index % 11}` } : {}),
      ...(index % 13 === 0 ? { kind: 'odd "kind" \\' as MessageWithParts['kind'] } : {}),
      ...(index % 17 === 0 ? { id: `msg_custom "${index}" \\ é` } : {}),
      ...(index % 19 === 0 ? { status: 'streaming' as const } : {}),
    });
    return message.id;
  }

  /** The expected read: parent links followed one message at a time, then the options applied. */
  async function expected(headId: string, options: HistoryOptions): Promise<MessageWithParts[]> {
    const path: MessageWithParts[] = [];
    for (let id: string | null = headId; id !== null; ) {
      const message = await store.getMessage(id, { parts: options.parts ?? 'full' });
      path.unshift(message);
      id = message.parentId;
    }
    let fromDepth = options.fromDepth ?? 0;
    const toDepth = Math.min(options.toDepth ?? Number.MAX_SAFE_INTEGER, path.length);
    if (options.last !== undefined) fromDepth = Math.max(fromDepth, toDepth - options.last);
    return path.slice(fromDepth, Math.max(fromDepth, toDepth)).filter((message) => !options.roles || options.roles.includes(message.role));
  }

  async function expectSameAsLinks(headId: string, depth: number): Promise<void> {
    const middle = Math.floor(depth / 2);
    const optionSets: HistoryOptions[] = [
      {},
      { parts: 'none' },
      { last: 1 },
      { last: 50 },
      { last: 300, parts: 'none' },
      { fromDepth: middle },
      { fromDepth: depth },
      { fromDepth: depth + 1 },
      { toDepth: middle },
      { toDepth: 1 },
      { toDepth: 0 },
      { fromDepth: middle - 20, toDepth: middle + 20 },
      { toDepth: middle, last: 30 },
      { roles: ['user'] },
      { roles: ['assistant', 'tool'], parts: 'none', last: 100 },
      { roles: [] },
    ];
    for (const options of optionSets) {
      const [read, want] = [await store.pathTo(headId, options), await expected(headId, options)];
      expect(read, JSON.stringify(options)).toStrictEqual(want);
      // Same fields in the same order as a message read on its own.
      expect(JSON.stringify(read)).toBe(JSON.stringify(want));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-read-path-'));
    store = await SqliteStore.open({ path: join(dir, 'store.db') });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a path appended without interruption as ranges, over several chunks', async () => {
    const session = await store.createSession();
    for (let index = 0; index < 700; index++) await append(session.id);
    const { headMessageId } = await store.getSession(session.id);
    await expectSameAsLinks(headMessageId!, 699);
    expect(await store.history(session.id)).toHaveLength(700);
  });

  it('reads a path cut by rewinds into runs, and stops at the first message after a rewind to nothing', async () => {
    const session = await store.createSession();
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) await append(session.id);
    await store.moveHead({ sessionId: session.id, to: null, reason: 'rewind', bumpGeneration: true });
    for (let index = 0; index < 300; index++) ids.push(await append(session.id));
    await store.moveHead({ sessionId: session.id, to: ids[149]!, reason: 'rewind', bumpGeneration: true });
    for (let index = 0; index < 200; index++) ids.push(await append(session.id));
    await store.moveHead({ sessionId: session.id, to: ids[399]!, reason: 'rewind', bumpGeneration: true });
    for (let index = 0; index < 40; index++) ids.push(await append(session.id));
    const { headMessageId } = await store.getSession(session.id);
    const history = await store.history(session.id);
    expect(history).toHaveLength(150 + 100 + 40);
    await expectSameAsLinks(headMessageId!, history.length - 1);
    // A message off the active path, on the branch the last rewind left.
    await expectSameAsLinks(ids[420]!, 150 + 420 - 300);
  });

  it('reads a fork whose few messages interleave with its parent’s as a list, then the shared prefix as a range', async () => {
    const parent = await store.createSession();
    const ids: string[] = [];
    for (let index = 0; index < 400; index++) ids.push(await append(parent.id));
    const { session: child } = await store.forkSession({ parentSessionId: parent.id, at: ids[399]!, kind: 'fork' });
    for (let index = 0; index < 3; index++) {
      await append(child.id);
      await append(parent.id);
    }
    const { headMessageId } = await store.getSession(child.id);
    expect((await store.history(child.id)).slice(0, 400).map((message) => message.id)).toEqual(ids);
    await expectSameAsLinks(headMessageId!, 402);
  });

  it('reads sessions that append in turn, one link at a time', async () => {
    const first = await store.createSession();
    const second = await store.createSession();
    for (let index = 0; index < 300; index++) {
      await append(first.id);
      if (index % 4 !== 0) await append(second.id);
    }
    for (const session of [first, second]) {
      const { headMessageId } = await store.getSession(session.id);
      const history = await store.history(session.id);
      expect(history.every((message) => message.sessionId === session.id)).toBe(true);
      await expectSameAsLinks(headMessageId!, history.length - 1);
    }
  });

  it('reads a long prefix, then turns appended in turn by a fork and its parent', async () => {
    const parent = await store.createSession();
    const ids: string[] = [];
    for (let index = 0; index < 300; index++) ids.push(await append(parent.id));
    const { session: child } = await store.forkSession({ parentSessionId: parent.id, at: ids[150]!, kind: 'fork' });
    for (let index = 0; index < 60; index++) {
      await append(child.id);
      await append(parent.id);
      if (index % 3 === 0) await append(child.id);
    }
    for (const session of [parent, child]) {
      const { headMessageId } = await store.getSession(session.id);
      await expectSameAsLinks(headMessageId!, (await store.history(session.id)).length - 1);
    }
  });
});
