import type { Checkpoint, Message, Session } from '../model/index.js';
import type { Store } from '../store/store.js';

/**
 * The parent's checkpoints made **after** the moment of message `at` — the changes a fork at `at`
 * undoes (oldest first). A checkpoint is before the fork point when:
 * 1. it was recorded before `at` was created; or
 * 2. it belongs to `at`'s own turn and its tool call's result is on the path up to `at` (or `at`
 *    is the turn's pinned final reply, or it has no tool call and was recorded no later than `at`); or
 * 3. it belongs to another turn whose input is an ancestor of `at` (same-millisecond ties).
 * Everything else — later turns, cut-off branches written after `at`, the rest of `at`'s turn — is after.
 */
export async function checkpointsAfterMessage(store: Store, parent: Session, at: Message): Promise<Checkpoint[]> {
  const all = await store.listCheckpoints(parent.id);
  const candidates = all.filter((checkpoint) => checkpoint.createdAt >= at.createdAt);
  if (candidates.length === 0) return [];

  let ownTurnFinal = false;
  const resultsUpToAt = new Set<string>();
  if (at.turnId !== null && candidates.some((checkpoint) => checkpoint.turnId === at.turnId)) {
    const turn = await store.getTurn(at.turnId);
    ownTurnFinal = turn.boundary?.at(-1) === at.id;
    if (!ownTurnFinal) {
      const input = await store.findMessage(turn.userMessageId);
      const fromDepth = input && input.depth <= at.depth ? input.depth : at.depth;
      for (const message of await store.pathTo(at.id, { fromDepth, parts: 'full' })) {
        for (const part of message.parts) {
          const content = part.content;
          if (content?.type === 'tool-result' && typeof content.toolCallId === 'string') resultsUpToAt.add(content.toolCallId);
        }
      }
    }
  }

  const ancestorAnchors = new Map<string, boolean>();
  const isAncestor = async (messageId: string): Promise<boolean> => {
    let known = ancestorAnchors.get(messageId);
    if (known === undefined) {
      const message = await store.findMessage(messageId);
      known = false;
      if (message && message.treeId === at.treeId && message.depth <= at.depth) {
        const [onPath] = await store.pathTo(at.id, { fromDepth: message.depth, toDepth: message.depth + 1, parts: 'none' });
        known = onPath?.id === message.id;
      }
      ancestorAnchors.set(messageId, known);
    }
    return known;
  };

  const after: Checkpoint[] = [];
  for (const checkpoint of candidates) {
    let before = false;
    if (at.turnId !== null && checkpoint.turnId === at.turnId) {
      before = ownTurnFinal || (checkpoint.toolCallId !== null ? resultsUpToAt.has(checkpoint.toolCallId) : checkpoint.createdAt <= at.createdAt);
    } else if (checkpoint.anchorMessageId !== null) {
      before = await isAncestor(checkpoint.anchorMessageId);
    }
    if (!before) after.push(checkpoint);
  }
  return after;
}

/** `checkpoint` and every later checkpoint of its session, oldest first. */
export async function checkpointsFrom(store: Store, checkpoint: Checkpoint): Promise<Checkpoint[]> {
  return store.listCheckpoints(checkpoint.sessionId, { afterSeq: checkpoint.seq - 1 });
}
