import type { MessageWithParts, Session } from '../model/index.js';
import type { Store } from '../store/store.js';
import { isCompacted, type OutlineNode, outlineTo } from './path-outline.js';

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
 * compaction summary hides from the model. Finds them in the path's outline (one read without
 * payloads the first time this process meets the path, then only what was appended since) and
 * loads the inputs alone, so tool outputs are never loaded. A side chat lists only what was asked
 * in it, not the conversation it inherited.
 */
export async function listRewindTargets(store: Store, sessionId: string): Promise<RewindTarget[]> {
  const session: Session = await store.getSession(sessionId);
  if (session.headMessageId === null) return [];
  const head = await outlineTo(store, session.headMessageId);
  let startDepth = 0;
  if (session.kind === 'side_chat' && session.forkedFromMessageId) {
    startDepth = (await store.getMessage(session.forkedFromMessageId, { parts: 'none' })).depth + 1;
  }
  const compaction = head.compaction;
  const inputs: OutlineNode[] = [];
  for (let node = head.lastInput; node !== null && node.depth >= startDepth; node = node.parent?.lastInput ?? null) inputs.push(node);
  inputs.reverse();
  const missing = inputs.filter((node) => !typed.has(node));
  // getMessages answers in the order asked.
  const loaded = await store.getMessages(missing.map((node) => node.id));
  loaded.forEach((message, index) => typed.set(missing[index]!, { text: inputText(message), createdAt: message.createdAt }));
  return inputs.map((node) => ({
    messageId: node.id,
    turnId: node.turnId,
    depth: node.depth,
    text: typed.get(node)!.text,
    createdAt: typed.get(node)!.createdAt,
    compacted: isCompacted(node, compaction),
  }));
}

/**
 * What a user input says, kept beside its outline node: an input's parts never change (only an
 * assistant message streams), so each is loaded once per process and the next list loads only the
 * inputs typed since.
 */
const typed = new WeakMap<OutlineNode, { text: string; createdAt: number }>();

/** The text of a user input as typed: its text parts, joined by blank lines. */
export function inputText(message: MessageWithParts): string {
  return message.parts
    .map((part) => part.content)
    .filter((content) => content?.type === 'text' && typeof content.text === 'string')
    .map((content) => content!.text as string)
    .join('\n\n');
}
