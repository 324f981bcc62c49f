import type { Message, Session } from '../model/index.js';
import type { Store } from '../store/store.js';

/**
 * True when `message` is on the session's active path (root → head). Costs one bounded walk from
 * the head down to the message's depth, not the history length.
 */
export async function isOnActivePath(store: Store, session: Session, message: Pick<Message, 'id' | 'depth' | 'treeId'>): Promise<boolean> {
  if (session.headMessageId === null || message.treeId !== session.treeId) return false;
  const [atDepth] = await store.history(session.id, { fromDepth: message.depth, toDepth: message.depth + 1, parts: 'none' });
  return atDepth?.id === message.id;
}
