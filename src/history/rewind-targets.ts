import type { MessageWithParts, Session } from '../model/index.js';
import type { Store } from '../store/store.js';
import { compactedPositions } from './compaction-view.js';
import { isUserInput } from './message-visibility.js';

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
 * compaction summary hides from the model (seed 004). Reads the path without payloads and then
 * loads only the user inputs' parts, so tool outputs are never loaded. A side chat lists only what
 * was asked in it, not the conversation it inherited.
 */
export async function listRewindTargets(store: Store, sessionId: string): Promise<RewindTarget[]> {
  const session: Session = await store.getSession(sessionId);
  const path = await store.history(sessionId, { parts: 'none' });
  const hidden = new Set([...compactedPositions(path)].map((position) => path[position]!.id));
  let start = 0;
  if (session.kind === 'side_chat' && session.forkedFromMessageId) {
    start = path.findIndex((message) => message.id === session.forkedFromMessageId) + 1;
  }
  const inputs = path.slice(start).filter(isUserInput);
  const withText = await store.getMessages(inputs.map((message) => message.id));
  return withText.map((message) => ({
    messageId: message.id,
    turnId: message.turnId,
    depth: message.depth,
    text: inputText(message),
    createdAt: message.createdAt,
    compacted: hidden.has(message.id),
  }));
}

/** The text of a user input as typed: its text parts, joined by blank lines. */
export function inputText(message: MessageWithParts): string {
  return message.parts
    .map((part) => part.content)
    .filter((content) => content?.type === 'text' && typeof content.text === 'string')
    .map((content) => content!.text as string)
    .join('\n\n');
}
