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
  const texts = await typedInputs(
    store,
    inputs.map((node) => node.id),
  );
  return inputs.map((node) => ({
    messageId: node.id,
    turnId: node.turnId,
    depth: node.depth,
    text: texts.get(node.id)!.text,
    createdAt: texts.get(node.id)!.createdAt,
    compacted: isCompacted(node, compaction),
  }));
}

/** What a user input says and when it was typed. */
export interface TypedInput {
  text: string;
  createdAt: number;
}

/** Inputs kept per store at most; past it the cache starts over. */
const MAX_TYPED = 100_000;
const typed = new WeakMap<Store, Map<string, TypedInput>>();

/**
 * The text of these user inputs, loaded once per process: a message's parts never change once it
 * stops streaming, so a list read again loads only the inputs typed since. Loads the
 * inputs alone, never another message.
 */
export async function typedInputs(store: Store, messageIds: readonly string[]): Promise<Map<string, TypedInput>> {
  let cache = typed.get(store);
  if (!cache) {
    cache = new Map();
    typed.set(store, cache);
  }
  const missing = messageIds.filter((id) => !cache.has(id));
  if (cache.size + missing.length > MAX_TYPED) cache.clear();
  const result = new Map<string, TypedInput>();
  for (const message of missing.length === 0 ? [] : await store.getMessages(missing)) {
    const input = { text: inputText(message), createdAt: message.createdAt };
    // A message still streaming may change its parts: read again next time.
    if (message.status !== 'streaming') cache.set(message.id, input);
    result.set(message.id, input);
  }
  for (const id of messageIds) if (!result.has(id)) result.set(id, cache.get(id)!);
  return result;
}

/** The text of a user input as typed: its text parts, joined by blank lines. */
export function inputText(message: MessageWithParts): string {
  return message.parts
    .map((part) => part.content)
    .filter((content) => content?.type === 'text' && typeof content.text === 'string')
    .map((content) => content!.text as string)
    .join('\n\n');
}
