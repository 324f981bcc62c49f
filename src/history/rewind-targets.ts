import type { MessageWithParts, Session } from '../model/index.js';
import type { Store } from '../store/store.js';
import { coveredRange, isUserInput } from './message-visibility.js';

/** One entry of the `/rewind` list: a user input on the session's active path. */
export interface RewindTarget {
  messageId: string;
  turnId: string | null;
  /** Position on the active path (0 = first message). */
  depth: number;
  /** The input as typed (its text parts joined), for the list and to refill the input box. */
  text: string;
  createdAt: number;
  /** Hidden from the model by a compaction summary (still a valid conversation rewind target). */
  compacted: boolean;
}

/**
 * Every visible user input on the session's active path, oldest first — including inputs a
 * compaction summary hides from the model. Reads the path without payloads and then
 * loads only the user inputs' parts, so tool outputs are never loaded. A side chat lists only what
 * was asked in it, not the conversation it inherited.
 */
export async function listRewindTargets(store: Store, sessionId: string): Promise<RewindTarget[]> {
  const session: Session = await store.getSession(sessionId);
  // User and assistant messages without payloads: the inputs, and the summaries that decide what
  // is compacted (the runtime records one as a user message, another caller as an assistant one).
  const messages = await store.history(sessionId, { parts: 'none', roles: ['user', 'assistant'] });
  const compactedTo = await lastCompactedDepth(store, messages);
  let startDepth = 0;
  if (session.kind === 'side_chat' && session.forkedFromMessageId) {
    startDepth = (await store.getMessage(session.forkedFromMessageId, { parts: 'none' })).depth + 1;
  }
  const inputs = messages.filter((message) => message.depth >= startDepth && isUserInput(message));
  const withText = await store.getMessages(inputs.map((message) => message.id));
  return withText.map((message) => ({
    messageId: message.id,
    turnId: message.turnId,
    depth: message.depth,
    text: inputText(message),
    createdAt: message.createdAt,
    compacted: message.depth <= compactedTo,
  }));
}

/** Depth of the last message hidden by the path's last valid summary (-1: nothing compacted). */
async function lastCompactedDepth(store: Store, messages: MessageWithParts[]): Promise<number> {
  for (let index = messages.length - 1; index >= 0; index--) {
    const range = coveredRange(messages[index]!);
    if (!range) continue;
    const covered = await store.findMessage(range.to);
    // The same rule as compactionOrder: the range must end before the summary, on this path.
    if (covered && covered.depth < messages[index]!.depth && covered.treeId === messages[index]!.treeId) {
      const [onPath] = await store.pathTo(messages[index]!.id, { fromDepth: covered.depth, toDepth: covered.depth + 1, parts: 'none' });
      if (onPath?.id === covered.id) return covered.depth;
    }
  }
  return -1;
}

/** The text of a user input as typed: its text parts, joined by blank lines. */
export function inputText(message: MessageWithParts): string {
  return message.parts
    .map((part) => part.content)
    .filter((content) => content?.type === 'text' && typeof content.text === 'string')
    .map((content) => content!.text as string)
    .join('\n\n');
}
