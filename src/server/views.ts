import { conversationWindow, subagentLink, visibilityOf, type Visibility, windowActions } from '../history/index.js';
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
 * the page's entries come from the path's outline (`conversationWindow`, which costs the page, not
 * the path), and only the page's messages are loaded, tool outputs by size. `before` is a depth
 * (the previous page's `nextBefore`).
 */
export async function conversationPage(
  store: Store,
  session: Session,
  options: { before?: number | undefined; limit: number; at?: string | undefined; running: boolean },
): Promise<ConversationPage> {
  const window = await conversationWindow(store, session, options);
  const page = window.entries;
  const tools = page.filter((entry) => entry.message.role === 'tool').map((entry) => entry.message.id);
  const others = page.filter((entry) => entry.message.role !== 'tool').map((entry) => entry.message.id);
  const [full, sized, actions] = await Promise.all([
    store.getMessages(others),
    store.getMessages(tools, { parts: 'none' }),
    options.at === undefined ? windowActions(store, session, window) : () => NO_ACTIONS,
  ]);
  const loaded = new Map([...full, ...sized].map((message) => [message.id, message]));
  // Calls proposed before the page's first tool result: from the nearest assistant message before it.
  const calls: PendingCall[] = [];
  if (page.length > 0 && page[0]!.message.role === 'tool') {
    let node = page[0]!.message.parent;
    while (node !== null && node.role !== 'assistant') node = node.parent;
    if (node !== null) {
      const [assistant] = await store.getMessages([node.id]);
      for (const part of assistant!.parts)
        if (part.content?.type === 'tool-call') calls.push({ toolCallId: String(part.content.toolCallId), toolName: String(part.content.toolName) });
    }
  }
  const messages = page.map((entry) => {
    const message = loaded.get(entry.message.id)!;
    if (message.role === 'assistant') calls.length = 0;
    return messageView(message, { compacted: entry.compacted, summaryOf: entry.summaryOf, actions: actions(entry.message) }, calls);
  });
  return {
    sessionId: session.id,
    headMessageId: options.at ?? session.headMessageId,
    total: window.total,
    messages,
    nextBefore: window.nextBefore,
    modelStartsAt: window.modelStartsAt,
    running: options.running,
  };
}
