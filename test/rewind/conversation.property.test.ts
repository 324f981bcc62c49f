import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listRewindTargets, modelView } from '../../src/history/index.js';
import { WaypointError } from '../../src/model/index.js';
import { findRedo, redoConversation, rewindConversation } from '../../src/rewind/conversation/index.js';
import { SqliteStore } from '../../src/store/index.js';

type Step = { op: 'turn' | 'rewind' | 'redo' | 'compact'; pick: number };
const step = fc.record({ op: fc.constantFrom<Step['op']>('turn', 'turn', 'turn', 'rewind', 'redo', 'compact'), pick: fc.nat() });

describe('conversation invariants under random turns, rewinds, redos and compactions', () => {
  it('history stays a root path, rewinds return the typed input and cut exactly, redo restores exactly, nothing is lost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'waypoint-conv-prop-'));
        const store = await SqliteStore.open({ path: join(dir, 'store.db') });
        try {
          const { id: sessionId, treeId } = await store.createSession();
          const ids = async () => (await store.history(sessionId, { parts: 'none' })).map((message) => message.id);
          const created: string[] = [];
          let counter = 0;
          for (const { op, pick } of steps) {
            const before = await ids();
            if (op === 'turn') {
              counter++;
              const user = await store.appendMessage({ sessionId, role: 'user', parts: [{ type: 'text', text: `q${counter}` }] });
              const reply = await store.appendMessage({ sessionId, role: 'assistant', parts: [{ type: 'text', text: `a${counter}` }] });
              created.push(user.message.id, reply.message.id);
            } else if (op === 'compact' && before.length > 2) {
              const to = before[pick % (before.length - 1)]!;
              const summary = await store.appendMessage({
                sessionId,
                role: 'user',
                kind: 'summary',
                parts: [{ type: 'text', text: 'summary' }],
                metadata: { covers: { to } },
              });
              created.push(summary.message.id);
              const view = modelView(await store.history(sessionId, { parts: 'none' }));
              expect(view[0]!.id).toBe(summary.message.id);
              expect(view.some((message) => message.id === to)).toBe(false);
            } else if (op === 'rewind') {
              const targets = await listRewindTargets(store, sessionId);
              if (targets.length === 0) continue;
              const target = targets[pick % targets.length]!;
              const result = await rewindConversation(store, { sessionId, messageId: target.messageId });
              expect(result.draft).toBe(target.text);
              expect(await ids()).toEqual(before.slice(0, target.depth));
              expect((await findRedo(store, sessionId))?.to).toBe(before.at(-1) ?? null);
            } else if (op === 'redo') {
              const redo = await findRedo(store, sessionId);
              if (!redo) {
                await expect(redoConversation(store, sessionId)).rejects.toSatisfy((error) => WaypointError.is(error, 'NOTHING_TO_REDO'));
                expect(await ids()).toEqual(before);
                continue;
              }
              await redoConversation(store, sessionId);
              const after = await ids();
              expect(after.at(-1) ?? null).toBe(redo.to);
              expect(after.slice(0, before.length)).toEqual(before);
            }
            const path = await store.history(sessionId, { parts: 'none' });
            for (const [index, message] of path.entries()) expect(message.parentId).toBe(index === 0 ? null : path[index - 1]!.id);
          }
          const all = new Set((await store.listTreeMessages(treeId)).map((message) => message.id));
          for (const id of created) expect(all.has(id)).toBe(true);
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 50 },
    );
  });
});
