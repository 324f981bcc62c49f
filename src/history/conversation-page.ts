import { type Session, WaypointError } from '../model/index.js';
import type { Store } from '../store/store.js';
import type { ConversationEntry } from './conversation-view.js';
import { isUserInput } from './message-visibility.js';
import { ancestorAt, isCompacted, type OutlineNode, outlineTo } from './path-outline.js';

/** A page of the conversation as a person reads it, newest at the end. */
export interface ConversationWindow {
  /** The page's entries in path order, each as `conversationView` gives it. */
  entries: ConversationEntry<OutlineNode>[];
  /** Entries of the whole view (what `conversationView(path).length` is). */
  total: number;
  /** The depth to pass as `before` for the page before this one; null on the first page. */
  nextBefore: number | null;
  /** The last summary of the view that stands for earlier messages (where the model's view starts). */
  modelStartsAt: string | null;
  /** The message read up to (the head, or `at`), null for an empty history. */
  head: OutlineNode | null;
}

/**
 * The newest `limit` entries of `conversationView` over the path to the session's head (or to
 * `at`) at depths below `before`, computed from the path's outline: what it costs is the page
 * (and, the first time a process meets a path, one read of it without payloads), not the path.
 * The same entries, order, `compacted` and `summaryOf` as the whole-path view.
 */
export async function conversationWindow(
  store: Store,
  session: Session,
  options: { before?: number | undefined; limit: number; at?: string | undefined },
): Promise<ConversationWindow> {
  const headId = options.at ?? session.headMessageId;
  if (headId === null) return { entries: [], total: 0, nextBefore: null, modelStartsAt: null, head: null };
  const head = await outlineTo(store, headId);
  const start = viewStart(session, head);
  const compaction = head.compaction;
  const entries: ConversationEntry<OutlineNode>[] = [];
  let node = options.before === undefined || options.before > head.depth ? head : ancestorAt(head, options.before - 1);
  let more = false;
  for (; node !== null && node.depth >= start; node = node.parent) {
    if (node.visibility === 'model') continue;
    if (entries.length === options.limit) {
      more = true;
      break;
    }
    entries.push({ message: node, compacted: isCompacted(node, compaction), summaryOf: node.covers ? node.covers.plainCount : null });
  }
  entries.reverse();
  const startNode = start > 0 ? ancestorAt(head, start - 1) : null;
  const shown = head.shownCompaction;
  return {
    entries,
    total: head.shownCount - (startNode?.shownCount ?? 0),
    nextBefore: more ? entries[0]!.message.depth : null,
    modelStartsAt: shown !== null && shown.depth >= start ? shown.id : null,
    head,
  };
}

/** The first depth the view shows: a side chat starts after what it inherited, when that is on the path. */
function viewStart(session: Session, head: OutlineNode): number {
  if (session.kind !== 'side_chat' || !session.forkedFromMessageId) return 0;
  let node: OutlineNode | null = head;
  while (node !== null && node.id !== session.forkedFromMessageId) node = node.parent;
  return node === null ? 0 : node.depth + 1;
}

/** Which buttons a message of a page gets (the rules of the browser's conversation). */
export interface EntryActions {
  rewind: boolean;
  edit: boolean;
  retry: boolean;
  fork: boolean;
}

/**
 * The actions of a page's messages: rewind on a user input; edit on the path's last input; retry on
 * the last message when it is a reply; fork (stable) on the final reply of one of the session's
 * completed turns. Reads only the turns the page's messages belong to.
 */
export async function windowActions(store: Store, session: Session, window: ConversationWindow): Promise<(node: OutlineNode) => EntryActions> {
  const head = window.head;
  const lastInput = head?.lastInput?.id ?? null;
  const lastReply = head && head.role === 'assistant' && head.kind === 'reply' ? head.id : null;
  const turnIds = [...new Set(window.entries.map((entry) => entry.message.turnId).filter((id): id is string => id !== null))];
  // Only this session's turns give a fork button; a turn of another (a fork's parent, even one
  // deleted since) gives none.
  const turns = await Promise.all(
    turnIds.map((id) => store.getTurn(id).catch((error) => (WaypointError.is(error, 'TURN_NOT_FOUND') ? null : Promise.reject(error)))),
  );
  const finals = new Set<string>();
  for (const turn of turns)
    if (turn !== null && turn.sessionId === session.id && turn.status === 'complete' && turn.boundary?.length) finals.add(turn.boundary.at(-1)!);
  return (node) => ({
    rewind: isUserInput(node),
    edit: node.id === lastInput,
    retry: node.id === lastReply,
    fork: finals.has(node.id),
  });
}
