import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WaypointError } from '../model/index.js';
import { SqliteStore } from '../store/index.js';
import { SessionHistory } from './session-history.js';

type Operation = { op: 'append' | 'rewind' | 'fork' | 'session' | 'foreign-move'; session: number; target: number };

const operation = fc.record({
  op: fc.constantFrom<Operation['op']>('append', 'append', 'append', 'rewind', 'fork', 'session', 'foreign-move'),
  session: fc.nat(),
  target: fc.nat(),
});

/** Expected state, kept independently of the store. */
interface Model {
  sessions: Array<{ id: string; treeId: string; head: string | null }>;
  parent: Map<string, string | null>;
  treeOf: Map<string, string>;
}

function expectedPath(model: Model, head: string | null): string[] {
  const path: string[] = [];
  for (let id = head; id !== null; id = model.parent.get(id)!) path.unshift(id);
  return path;
}

describe('message tree invariants under random appends, head moves and forks', () => {
  it('every history is a root path, nothing is lost, heads stay in their own tree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 40 }), async (operations) => {
        const dir = mkdtempSync(join(tmpdir(), 'waypoint-prop-'));
        const store = await SqliteStore.open({ path: join(dir, 'store.db') });
        try {
          const history = new SessionHistory(store);
          const first = await history.createSession();
          const model: Model = { sessions: [{ id: first.id, treeId: first.treeId, head: null }], parent: new Map(), treeOf: new Map() };
          for (const step of operations) {
            const session = model.sessions[step.session % model.sessions.length]!;
            const treeMessages = [...model.treeOf].filter(([, tree]) => tree === session.treeId).map(([id]) => id);
            const target = treeMessages.length ? treeMessages[step.target % treeMessages.length]! : null;
            switch (step.op) {
              case 'append': {
                const message = await history.append(session.id, {
                  role: step.target % 2 ? 'assistant' : 'user',
                  parts: [{ type: 'text', text: String(step.target) }],
                });
                model.parent.set(message.id, session.head);
                model.treeOf.set(message.id, session.treeId);
                session.head = message.id;
                break;
              }
              case 'rewind': {
                const to = step.target % 5 === 0 ? null : target;
                await history.moveHead({ sessionId: session.id, to, reason: 'rewind', bumpGeneration: true });
                session.head = to;
                break;
              }
              case 'fork': {
                const { session: child } = await history.startSessionAt({ parentSessionId: session.id, at: target, kind: 'fork' });
                model.sessions.push({ id: child.id, treeId: child.treeId, head: target });
                break;
              }
              case 'session': {
                const created = await history.createSession();
                model.sessions.push({ id: created.id, treeId: created.treeId, head: null });
                break;
              }
              case 'foreign-move': {
                const foreign = [...model.treeOf].find(([, tree]) => tree !== session.treeId);
                if (!foreign) break;
                const error = await history.moveHead({ sessionId: session.id, to: foreign[0], reason: 'rewind' }).catch((caught: unknown) => caught);
                expect(WaypointError.is(error, 'MESSAGE_NOT_IN_TREE')).toBe(true);
                break;
              }
            }
          }
          for (const session of model.sessions) {
            const stored = await store.getSession(session.id);
            expect(stored.headMessageId).toBe(session.head);
            const path = await store.history(session.id, { parts: 'none' });
            expect(path.map((message) => message.id)).toEqual(expectedPath(model, session.head));
            path.forEach((message, index) => {
              expect(message.depth).toBe(index);
              expect(message.parentId).toBe(index === 0 ? null : path[index - 1]!.id);
              expect(message.treeId).toBe(session.treeId);
            });
          }
          for (const [id, treeId] of model.treeOf) expect((await store.findMessage(id))?.treeId).toBe(treeId);
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});
