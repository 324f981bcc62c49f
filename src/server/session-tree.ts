import { isUserInput, typedInputs } from '../history/index.js';
import type { Message, Session } from '../model/index.js';
import type { Store } from '../store/index.js';

/** One user input of a conversation tree: the turn a rewind, edit or retry can branch at. */
export interface TreeNode {
  messageId: string;
  /** The previous input on its branch (null: the first). */
  parentMessageId: string | null;
  /** The input's text, cut to 200 characters. */
  text: string;
  createdAt: number;
  depth: number;
  /** On the session's active path. */
  onPath: boolean;
  /** Sessions of the tree whose head lies in this input's turn. */
  heads: string[];
}

export interface SessionTree {
  sessionId: string;
  headMessageId: string | null;
  nodes: TreeNode[];
}

/**
 * The branches inside a session's conversation tree, one node per user input, oldest first: every
 * message of the tree is read without payloads, each input linked to the nearest input above it,
 * and only the inputs' text loaded. A node with two children is where a rewind, edit or retry
 * branched; forks sharing the tree show as heads.
 */
export async function sessionTree(store: Store, session: Session): Promise<SessionTree> {
  const messages = await store.listTreeMessages(session.treeId);
  const byId = new Map(messages.map((message) => [message.id, message]));
  /** The nearest input at or above a message (memoized: each message is resolved once). */
  const inputOf = new Map<string, string | null>();
  const resolve = (start: Message | undefined): string | null => {
    const chain: string[] = [];
    let current = start;
    let found: string | null = null;
    while (current) {
      const known = inputOf.get(current.id);
      if (known !== undefined) {
        found = known;
        break;
      }
      if (isUserInput(current)) {
        found = current.id;
        inputOf.set(current.id, found);
        break;
      }
      chain.push(current.id);
      current = current.parentId === null ? undefined : byId.get(current.parentId);
    }
    for (const id of chain) inputOf.set(id, found);
    return found;
  };
  const inputs = messages.filter((message) => isUserInput(message));
  const onPath = new Set<string>();
  for (let current = session.headMessageId === null ? undefined : byId.get(session.headMessageId); current; ) {
    onPath.add(current.id);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  const heads = new Map<string, string[]>();
  for (const member of await store.listSessions({ treeId: session.treeId })) {
    if (member.headMessageId === null) continue;
    const at = resolve(byId.get(member.headMessageId));
    if (at !== null) heads.set(at, [...(heads.get(at) ?? []), member.id]);
  }
  const texts = await typedInputs(
    store,
    inputs.map((message) => message.id),
  );
  return {
    sessionId: session.id,
    headMessageId: session.headMessageId,
    nodes: inputs.map((message) => ({
      messageId: message.id,
      parentMessageId: message.parentId === null ? null : resolve(byId.get(message.parentId)),
      text: (texts.get(message.id)?.text ?? '').slice(0, 200),
      createdAt: message.createdAt,
      depth: message.depth,
      onPath: onPath.has(message.id),
      heads: heads.get(message.id) ?? [],
    })),
  };
}
