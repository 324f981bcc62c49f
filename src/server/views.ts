import { conversationView, isUserInput, subagentLink, visibilityOf, type Visibility } from '../history/index.js';
import type { MessageKind, MessageRole, MessageStatus, MessageWithParts, Session } from '../model/index.js';
import type { Store } from '../store/index.js';

/** A session as the browser lists it. */
export interface SessionInfo {
  id: string;
  kind: Session['kind'];
  title: string;
  workdir: string | null;
  parentSessionId: string | null;
  rootSessionId: string;
  forkedFromMessageId: string | null;
  headMessageId: string | null;
  branchGeneration: number;
  createdAt: number;
  updatedAt: number;
  /** A subagent's transcript (stored as a fork). */
  subagent: boolean;
  /** A turn of it runs in this server. */
  running: boolean;
}

export function sessionInfo(session: Session, running: boolean): SessionInfo {
  return {
    id: session.id,
    kind: session.kind,
    title: session.title,
    workdir: session.workdir,
    parentSessionId: session.parentSessionId,
    rootSessionId: session.rootSessionId,
    forkedFromMessageId: session.forkedFromMessageId,
    headMessageId: session.headMessageId,
    branchGeneration: session.branchGeneration,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    subagent: subagentLink(session) !== null,
    running,
  };
}

/** One part as a page carries it: text and tool calls in full, tool outputs (and anything else) by size only. */
export type PartView =
  | { type: 'text' | 'reasoning'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; index: number; toolCallId: string | null; toolName: string | null; size: number; loaded: false }
  | { type: string; index: number; size: number; loaded: false };

export interface MessageActions {
  rewind: boolean;
  edit: boolean;
  retry: boolean;
  fork: boolean;
}

export interface MessageView {
  id: string;
  parentId: string | null;
  sessionId: string;
  role: MessageRole;
  kind: MessageKind;
  status: MessageStatus;
  visibility: Visibility;
  turnId: string | null;
  depth: number;
  createdAt: number;
  compacted: boolean;
  summaryOf: number | null;
  subagentSessionId: string | null;
  parts: PartView[];
  actions: MessageActions;
}

const NO_ACTIONS: MessageActions = { rewind: false, edit: false, retry: false, fork: false };

/** A pending tool call a later tool result answers (results come in call order). */
interface PendingCall {
  toolCallId: string;
  toolName: string;
}

/**
 * A message for the browser. Tool results are given by size: `calls` (the calls proposed before
 * them, consumed in order) names what each answers without loading its output.
 */
export function messageView(
  message: MessageWithParts,
  view: { compacted: boolean; summaryOf: number | null; actions?: MessageActions },
  calls: PendingCall[] = [],
): MessageView {
  const parts: PartView[] = message.parts.map((part) => {
    const content = part.content;
    if (message.role === 'tool' || content === undefined) {
      if (part.type === 'tool-result') {
        const call = calls.shift() ?? null;
        return {
          type: 'tool-result',
          index: part.index,
          toolCallId: call?.toolCallId ?? null,
          toolName: call?.toolName ?? null,
          size: part.size,
          loaded: false,
        };
      }
      return { type: part.type, index: part.index, size: part.size, loaded: false };
    }
    if ((content.type === 'text' || content.type === 'reasoning') && typeof content.text === 'string') return { type: content.type, text: content.text };
    if (content.type === 'tool-call') {
      const call = { toolCallId: String(content.toolCallId ?? ''), toolName: String(content.toolName ?? '') };
      calls.push(call);
      return { type: 'tool-call', ...call, input: content.input ?? null };
    }
    return { type: content.type, index: part.index, size: part.size, loaded: false };
  });
  const subagent = message.role === 'tool' ? message.metadata.subagent : undefined;
  const subagentSessionId =
    subagent && typeof subagent === 'object' && !Array.isArray(subagent) && typeof subagent.sessionId === 'string' ? subagent.sessionId : null;
  return {
    id: message.id,
    parentId: message.parentId,
    sessionId: message.sessionId,
    role: message.role,
    kind: message.kind,
    status: message.status,
    visibility: visibilityOf(message),
    turnId: message.turnId,
    depth: message.depth,
    createdAt: message.createdAt,
    compacted: view.compacted,
    summaryOf: view.summaryOf,
    subagentSessionId,
    parts,
    actions: view.actions ?? NO_ACTIONS,
  };
}

export interface ConversationPage {
  sessionId: string;
  headMessageId: string | null;
  total: number;
  messages: MessageView[];
  nextBefore: number | null;
  modelStartsAt: string | null;
  running: boolean;
}

/**
 * A page of the conversation as the person sees it (the rules of `waypoint show`), newest first:
 * the path is read without payloads, the visible messages chosen, and only the page's messages
 * loaded, tool outputs by size. `before` is a depth (the previous page's `nextBefore`).
 */
export async function conversationPage(
  store: Store,
  session: Session,
  options: { before?: number | undefined; limit: number; at?: string | undefined; running: boolean },
): Promise<ConversationPage> {
  const path = options.at === undefined ? await store.history(session.id, { parts: 'none' }) : await store.pathTo(options.at, { parts: 'none' });
  const entries = conversationView(path, { startAfter: session.kind === 'side_chat' ? session.forkedFromMessageId : null });
  const before = options.before;
  const eligible = before === undefined ? entries : entries.filter((entry) => entry.message.depth < before);
  const page = eligible.slice(-options.limit);
  const loadIds = page.filter((entry) => entry.message.role !== 'tool').map((entry) => entry.message.id);
  const loaded = new Map((await store.getMessages(loadIds)).map((message) => [message.id, message]));
  const actions = await actionsFor(store, session, path, options.at === undefined);
  // Calls proposed before the page's first tool result: from the nearest assistant message before it.
  const calls: PendingCall[] = [];
  const firstIndex = page.length ? path.findIndex((message) => message.id === page[0]!.message.id) : -1;
  if (firstIndex > 0 && page[0]!.message.role === 'tool') {
    for (let index = firstIndex - 1; index >= 0; index--) {
      if (path[index]!.role !== 'assistant') continue;
      const [assistant] = await store.getMessages([path[index]!.id]);
      for (const part of assistant!.parts)
        if (part.content?.type === 'tool-call') calls.push({ toolCallId: String(part.content.toolCallId), toolName: String(part.content.toolName) });
      break;
    }
  }
  const messages = page.map((entry) => {
    const message = loaded.get(entry.message.id) ?? entry.message;
    if (message.role === 'assistant') calls.length = 0;
    return messageView(message, { compacted: entry.compacted, summaryOf: entry.summaryOf, actions: actions(message) }, calls);
  });
  const lastSummary = [...entries].reverse().find((entry) => entry.summaryOf !== null);
  return {
    sessionId: session.id,
    headMessageId: options.at ?? session.headMessageId,
    total: entries.length,
    messages,
    nextBefore: page.length > 0 && eligible.length > page.length ? page[0]!.message.depth : null,
    modelStartsAt: lastSummary?.message.id ?? null,
    running: options.running,
  };
}

/**
 * Which buttons a message gets: rewind on a user input; edit on the last input; retry on the last
 * reply; fork (stable) on the final reply of a completed turn. A branch read with `at` gets none.
 */
async function actionsFor(store: Store, session: Session, path: MessageWithParts[], live: boolean): Promise<(message: MessageWithParts) => MessageActions> {
  if (!live) return () => NO_ACTIONS;
  const lastInput = [...path].reverse().find((message) => isUserInput(message))?.id ?? null;
  const last = path.at(-1);
  const lastReply = last && last.role === 'assistant' && last.kind === 'reply' ? last.id : null;
  const finals = new Set<string>();
  for (const turn of await store.listTurns(session.id)) if (turn.status === 'complete' && turn.boundary?.length) finals.add(turn.boundary.at(-1)!);
  return (message) => ({
    rewind: isUserInput(message),
    edit: message.id === lastInput,
    retry: message.id === lastReply,
    fork: finals.has(message.id),
  });
}
