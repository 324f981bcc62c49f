import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  compactedPositions,
  conversationView,
  conversationWindow,
  forgetOutlines,
  inputText,
  isUserInput,
  listRewindTargets,
} from '../../src/history/index.js';
import type { JsonObject, MessageKind, MessageRole, Session } from '../../src/model/index.js';
import { PostgresStore, SqliteStore, type Store } from '../../src/store/index.js';
import { dropSchema, freshSchema, POSTGRES_TEST_URL, schemaUrl } from '../postgres/pg-test-env.js';

/**
 * The paged history read (`conversationWindow`, `listRewindTargets` over the path's outline)
 * against the whole-path read it replaces (`conversationView` over `store.history`), on generated
 * trees: branches left by rewinds, compaction summaries (valid, covering a message off their path,
 * or nothing), model-only and person-only messages, side chats, and a second store instance on
 * the same database writing in between (another process). Randomized; the seed is printed.
 */

const SEED = Number(process.env.WAYPOINT_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Backend {
  name: string;
  open(): Promise<{ a: Store; b: Store; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'waypoint-paged-'));
      const a = await SqliteStore.open({ path: join(dir, 'store.db') });
      const b = await SqliteStore.open({ path: join(dir, 'store.db') });
      return {
        a,
        b,
        async cleanup() {
          await a.close();
          await b.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];
if (POSTGRES_TEST_URL) {
  backends.push({
    name: 'postgres',
    async open() {
      const schema = freshSchema('wpage');
      const a = await PostgresStore.open({ url: schemaUrl(schema) });
      const b = await PostgresStore.open({ url: schemaUrl(schema) });
      return {
        a,
        b,
        async cleanup() {
          await a.close();
          await b.close();
          await dropSchema(schema);
        },
      };
    },
  });
}

/** What the whole-path read gives for one page (the browser's paging rules). */
async function wholePathPage(store: Store, session: Session, options: { before?: number; limit: number; at?: string }) {
  const path = options.at === undefined ? await store.history(session.id, { parts: 'none' }) : await store.pathTo(options.at, { parts: 'none' });
  const entries = conversationView(path, { startAfter: session.kind === 'side_chat' ? session.forkedFromMessageId : null });
  const eligible = options.before === undefined ? entries : entries.filter((entry) => entry.message.depth < options.before!);
  const page = eligible.slice(-options.limit);
  return {
    entries: page.map((entry) => ({ id: entry.message.id, compacted: entry.compacted, summaryOf: entry.summaryOf })),
    total: entries.length,
    nextBefore: page.length > 0 && eligible.length > page.length ? page[0]!.message.depth : null,
    modelStartsAt: [...entries].reverse().find((entry) => entry.summaryOf !== null)?.message.id ?? null,
  };
}

async function pagedPage(store: Store, session: Session, options: { before?: number; limit: number; at?: string }) {
  const window = await conversationWindow(store, session, options);
  return {
    entries: window.entries.map((entry) => ({ id: entry.message.id, compacted: entry.compacted, summaryOf: entry.summaryOf })),
    total: window.total,
    nextBefore: window.nextBefore,
    modelStartsAt: window.modelStartsAt,
  };
}

/** The `/rewind` list as the whole-path read gives it. */
async function wholePathTargets(store: Store, session: Session) {
  const path = await store.history(session.id);
  const hidden = compactedPositions(path);
  let start = 0;
  if (session.kind === 'side_chat' && session.forkedFromMessageId) start = (await store.getMessage(session.forkedFromMessageId, { parts: 'none' })).depth + 1;
  return path
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.depth >= start && isUserInput(message))
    .map(({ message, index }) => ({ messageId: message.id, depth: message.depth, text: inputText(message), compacted: hidden.has(index) }));
}

async function compareEverything(store: Store, sessionId: string, next: () => number, label: string): Promise<number> {
  const session = await store.getSession(sessionId);
  let checks = 0;
  for (const limit of [1, 3, 1 + Math.floor(next() * 12)]) {
    let before: number | undefined;
    for (;;) {
      const options = before === undefined ? { limit } : { limit, before };
      const expected = await wholePathPage(store, session, options);
      expect(await pagedPage(store, session, options), `${label} limit ${limit} before ${before}`).toEqual(expected);
      checks++;
      if (expected.nextBefore === null) break;
      before = expected.nextBefore;
    }
  }
  if (session.headMessageId !== null) {
    // A branch read at an older message of the tree (the browser's `at`).
    const path = await store.history(sessionId, { parts: 'none' });
    const at = path[Math.floor(next() * path.length)]!.id;
    expect(await pagedPage(store, session, { limit: 5, at }), `${label} at ${at}`).toEqual(await wholePathPage(store, session, { limit: 5, at }));
  }
  const targets = (await listRewindTargets(store, sessionId)).map(({ messageId, depth, text, compacted }) => ({ messageId, depth, text, compacted }));
  expect(targets, `${label} rewind targets`).toEqual(await wholePathTargets(store, session));
  return checks + 2;
}

describe.each(backends)('the paged history read ($name)', (backend) => {
  let cleanup: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await cleanup?.();
    cleanup = null;
  });

  it(`gives what the whole-path read gives on generated trees (seed ${SEED})`, { timeout: 600_000 }, async () => {
    console.log(`paged history (${backend.name}): seed ${SEED} (set WAYPOINT_TEST_SEED to repeat)`);
    const next = random(SEED);
    const opened = await backend.open();
    cleanup = opened.cleanup;
    const stores = [opened.a, opened.b];
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const main = await opened.a.createSession({ title: 'generated' });
    const sessions: string[] = [main.id];
    let counter = 0;
    let checks = 0;
    for (let step = 0; step < 260; step++) {
      // Either instance writes: the other one's outline must follow without being told.
      const store = pick(stores);
      const sessionId = pick(sessions);
      const session = await store.getSession(sessionId);
      const roll = next();
      if (roll < 0.08 && session.headMessageId !== null) {
        // A rewind (or redo) to any message of the tree: the next appends start a branch.
        const tree = await store.listTreeMessages(session.treeId);
        await store.moveHead({ sessionId, to: pick(tree).id, reason: 'rewind', bumpGeneration: true });
      } else if (roll < 0.11 && session.headMessageId !== null && sessions.length < 4) {
        const { session: side } = await store.forkSession({ parentSessionId: sessionId, at: session.headMessageId, kind: 'side_chat' });
        sessions.push(side.id);
      } else if (roll < 0.2 && session.headMessageId !== null) {
        // A summary covering an ancestor (valid), a message of the tree off its path or after it, or an unknown id.
        const path = await store.history(sessionId, { parts: 'none' });
        const tree = await store.listTreeMessages(session.treeId);
        const kind = next();
        const to = kind < 0.7 ? pick(path).id : kind < 0.9 ? pick(tree).id : 'msg_unknown';
        const metadata: JsonObject = { covers: { to } };
        if (next() < 0.2) metadata.visibility = 'model';
        await store.appendMessage({
          sessionId,
          role: pick(['user', 'assistant'] as const),
          kind: 'summary',
          parts: [{ type: 'text', text: `summary ${counter++}` }],
          metadata,
        });
      } else {
        const shapes: Array<[MessageRole, MessageKind | undefined, JsonObject]> = [
          ['user', 'input', {}],
          ['user', 'input', {}],
          ['assistant', 'reply', {}],
          ['assistant', 'reply', {}],
          ['tool', 'tool_result', {}],
          ['user', 'meta', { visibility: 'model' }],
          ['user', 'input', { visibility: 'model' }],
          ['assistant', 'reply', { visibility: 'ui' }],
          ['user', 'task_notification', {}],
        ];
        const [role, kind, metadata] = pick(shapes);
        const parts =
          role === 'tool'
            ? [{ type: 'tool-result', toolCallId: `c${counter}`, toolName: 'bash', output: { type: 'text', value: 'x'.repeat(100) } }]
            : [{ type: 'text', text: `${role} ${counter}` }];
        await store.appendMessage({ sessionId, role, ...(kind ? { kind } : {}), parts: parts as never, metadata });
        counter++;
      }
      if (step % 20 === 19) {
        for (const id of sessions) {
          const reader = pick(stores);
          checks += await compareEverything(reader, id, next, `step ${step} session ${id}`);
        }
        // A cold read (nothing outlined in this process) agrees with the warm one.
        forgetOutlines(opened.b);
        checks += await compareEverything(opened.b, pick(sessions), next, `step ${step} cold`);
      }
    }
    expect(checks).toBeGreaterThan(100);
  });
});

describe('what the paged read loads', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('a page of a long session loads the page, and after another process appends, reads only what it appended', async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-paged-load-'));
    const writer = await SqliteStore.open({ path: join(dir, 'store.db') });
    const reader = await SqliteStore.open({ path: join(dir, 'store.db') });
    try {
      const session = await writer.createSession();
      for (let turn = 0; turn < 150; turn++) {
        await writer.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: `q${turn}` }] });
        await writer.appendMessage({
          sessionId: session.id,
          role: 'tool',
          kind: 'tool_result',
          parts: [{ type: 'tool-result', toolCallId: 'c', toolName: 'bash', output: { type: 'text', value: 'o'.repeat(500) } }],
        });
        await writer.appendMessage({ sessionId: session.id, role: 'assistant', parts: [{ type: 'text', text: `a${turn}` }] });
      }
      const reads: Array<{ method: string; count: number; options?: object }> = [];
      const recording = new Proxy(reader, {
        get(target, property, receiver) {
          if (property === 'pathTo' || property === 'history') {
            return async (id: string, options?: object) => {
              const rows = await (target[property] as (id: string, options?: object) => Promise<unknown[]>)(id, options);
              reads.push({ method: property, count: rows.length, ...(options ? { options } : {}) });
              return rows;
            };
          }
          if (property === 'getMessages') {
            return (ids: string[], options?: object) => {
              reads.push({ method: 'getMessages', count: ids.length });
              return target.getMessages(ids, options);
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as Store;
      await conversationWindow(recording, await reader.getSession(session.id), { limit: 10 });
      // Cold: the newest window, then the rest of the path, without payloads.
      expect(reads.every((read) => read.method === 'pathTo' && (read.options as { parts?: string }).parts === 'none')).toBe(true);
      expect(reads.reduce((sum, read) => sum + read.count, 0)).toBe(450);
      reads.length = 0;
      await writer.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: 'new' }] });
      const window = await conversationWindow(recording, await reader.getSession(session.id), { limit: 10 });
      expect(window.entries.at(-1)!.message.id).toBe((await reader.getSession(session.id)).headMessageId);
      expect(window.total).toBe(451);
      // Warm: one window read from the new head; nothing else of the path.
      expect(reads).toEqual([{ method: 'pathTo', count: 64, options: { parts: 'none', last: 64 } }]);
      reads.length = 0;
      const targets = await listRewindTargets(recording, session.id);
      expect(targets).toHaveLength(151);
      // The inputs' text, and no other message (no tool output).
      expect(reads).toEqual([{ method: 'getMessages', count: 151 }]);
      reads.length = 0;
      expect(await listRewindTargets(recording, session.id)).toEqual(targets);
      expect(reads).toEqual([]);
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});
