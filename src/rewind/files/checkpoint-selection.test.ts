import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RewindHarness } from '../../../test/fixtures/rewind-harness.js';
import type { Checkpoint, Message, Session } from '../../model/index.js';
import { SqliteStore, type Store } from '../../store/index.js';
import { checkpointsFromMessage } from './checkpoint-selection.js';

/** The definition, read the long way: every checkpoint of the session and every anchor looked up. */
async function reference(store: Store, session: Session, message: Message): Promise<string[]> {
  const all = await store.listCheckpoints(session.id);
  const anchors = new Map<string, Message | null>();
  for (const checkpoint of all) {
    if (checkpoint.anchorMessageId !== null && !anchors.has(checkpoint.anchorMessageId))
      anchors.set(checkpoint.anchorMessageId, await store.findMessage(checkpoint.anchorMessageId));
  }
  const atOrAfter = (anchor: Message | null | undefined): boolean =>
    !!anchor && (anchor.id === message.id || anchor.createdAt > message.createdAt || (anchor.createdAt === message.createdAt && anchor.id > message.id));
  const start = all.find((checkpoint) => checkpoint.anchorMessageId !== null && atOrAfter(anchors.get(checkpoint.anchorMessageId)));
  return start ? all.filter((checkpoint) => checkpoint.seq >= start.seq).map((checkpoint) => checkpoint.id) : [];
}

const ids = (checkpoints: Checkpoint[]): string[] => checkpoints.map((checkpoint) => checkpoint.id);

describe('checkpointsFromMessage', () => {
  let h: RewindHarness;
  let other: SqliteStore;
  beforeEach(async () => {
    h = await RewindHarness.create();
    // A second handle on the same file: another process recording checkpoints meanwhile.
    other = await SqliteStore.open({ path: h.storePath });
  });
  afterEach(async () => {
    await other.close();
    await h.cleanup();
  });

  it('matches the full-scan definition as checkpoints arrive, in any anchor order, from either handle', async () => {
    const messages: Message[] = [];
    const step = fc.oneof(
      fc.constant({ kind: 'message' as const }),
      fc.record({ kind: fc.constant('checkpoint' as const), anchor: fc.nat(), unanchored: fc.boolean(), otherHandle: fc.boolean() }),
      fc.record({ kind: fc.constant('select' as const), target: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        for (const action of steps) {
          if (action.kind === 'message' || messages.length === 0) {
            const { message } = await h.store.appendMessage({
              sessionId: h.session.id,
              role: 'user',
              kind: 'input',
              parts: [{ type: 'text', text: `turn ${messages.length}` }],
            });
            messages.push(message);
            if (action.kind === 'message') continue;
          }
          if (action.kind === 'checkpoint') {
            // Anchored at any message so far: a late background change of an earlier turn included.
            const anchor = messages[action.anchor % messages.length]!;
            await (action.otherHandle ? other : h.store).addCheckpoints([
              {
                sessionId: h.session.id,
                anchorMessageId: action.unanchored ? null : anchor.id,
                op: 'modify',
                path: `workspace:f${action.anchor % 4}.txt`,
                beforeHash: null,
                afterHash: null,
                source: 'tool',
              },
            ]);
          } else {
            const target = messages[action.target % messages.length]!;
            expect(ids(await checkpointsFromMessage(h.store, h.session, target))).toEqual(await reference(h.store, h.session, target));
          }
        }
        for (const target of messages)
          expect(ids(await checkpointsFromMessage(h.store, h.session, target))).toEqual(await reference(h.store, h.session, target));
      }),
      { numRuns: 15 },
    );
  });

  it('ignores an anchor whose message does not exist, and finds later ones', async () => {
    const first = await h.turn('first');
    await h.store.addCheckpoints([
      { sessionId: h.session.id, anchorMessageId: 'message_unknown', op: 'modify', path: 'workspace:a.txt', beforeHash: null, afterHash: null, source: 'tool' },
    ]);
    const firstMessage = await h.store.getMessage(first.messageId, { parts: 'none' });
    expect(await checkpointsFromMessage(h.store, h.session, firstMessage)).toEqual([]);
    const [recorded] = await h.store.addCheckpoints([
      { sessionId: h.session.id, anchorMessageId: first.messageId, op: 'modify', path: 'workspace:b.txt', beforeHash: null, afterHash: null, source: 'tool' },
    ]);
    expect(ids(await checkpointsFromMessage(h.store, h.session, firstMessage))).toEqual([recorded!.id]);
    expect(ids(await checkpointsFromMessage(h.store, h.session, firstMessage))).toEqual(await reference(h.store, h.session, firstMessage));
  });
});
