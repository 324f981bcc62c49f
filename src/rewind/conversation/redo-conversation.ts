import { parseInput, SessionIdArgument } from '../rewind-entry-schemas.js';
import { ConflictError, type EventBus, type Entry, type Session } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import type { ConversationEvents } from './conversation-events.js';

export interface RedoInfo {
  /** The rewind entry that would be undone. */
  rewind: Entry;
  /** Where the head returns. */
  to: string | null;
}

const REWIND_REASONS = new Set(['rewind', 'edit', 'retry']);

/**
 * The most recent conversation rewind that can still be redone: the head is where that rewind
 * left it (nothing was appended since, no other move happened), read from the session's head-move
 * entries, so it survives restarts. Null when there is nothing to redo.
 */
export async function findRedo(store: Store, sessionId: string): Promise<RedoInfo | null> {
  const session = await store.getSession(sessionId);
  const moves = await store.listEntries(sessionId, { type: 'head-move' });
  // Walk back over redo/rewind pairs: a redo undoes the rewind just before it.
  let pendingRedos = 0;
  for (let index = moves.length - 1; index >= 0; index--) {
    const move = moves[index]!;
    if (move.data.reason === 'redo') {
      pendingRedos++;
      continue;
    }
    if (!REWIND_REASONS.has(String(move.data.reason))) return null;
    if (pendingRedos > 0) {
      pendingRedos--;
      continue;
    }
    if (move.data.to !== session.headMessageId) return null;
    return { rewind: move, to: (move.data.from as string | null) ?? null };
  }
  return null;
}

/** Undo the latest conversation rewind: the head returns to where it was. */
export async function redoConversation(store: Store, sessionId: string, events?: EventBus<ConversationEvents>): Promise<Session> {
  parseInput(SessionIdArgument, sessionId, 'sessionId');
  const redo = await findRedo(store, sessionId);
  if (!redo) {
    throw new ConflictError({
      code: 'NOTHING_TO_REDO',
      message: `Session ${sessionId} has no rewind to redo: nothing was rewound, or the conversation moved on since the last rewind (a new message, another move).`,
      details: { sessionId },
    });
  }
  const { session } = await store.moveHead({
    sessionId,
    to: redo.to,
    expectedFrom: redo.rewind.data.to as string | null,
    reason: 'redo',
    data: { redoOf: redo.rewind.id },
  });
  events?.emit('rewind-redo', { session, toMessageId: redo.to });
  return session;
}
