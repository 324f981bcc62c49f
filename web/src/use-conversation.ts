import { useCallback, useEffect, useRef, useState } from 'react';
import type { Api } from './api.js';
import type { ConversationPage, MessageView, ServerEvent } from './types.js';

export interface ConversationState {
  page: ConversationPage | null;
  /** Earlier pages loaded above the newest one, oldest first. */
  messages: MessageView[];
  running: boolean;
  /** The tool running now in the streaming turn, if any. */
  activeTool: string | null;
  error: string | null;
}

const PAGE = 50;

/**
 * One session's conversation as the page shows it: the newest page, earlier pages on request, and
 * the live events of its turns applied as they come (text deltas into the streaming reply, the
 * finished message in its place). Whatever moved the head (a rewind, an edit, a CLI command in
 * another process) makes it read the newest page again.
 */
export function useConversation(api: Api, sessionId: string | null) {
  const [state, setState] = useState<ConversationState>({ page: null, messages: [], running: false, activeTool: null, error: null });
  const current = useRef(sessionId);
  current.current = sessionId;
  /** Counts the reads of the newest page: when two overlap, only the later one's answer is shown. */
  const reads = useRef(0);

  const reload = useCallback(async () => {
    if (!sessionId) return;
    const read = ++reads.current;
    try {
      const page = await api.page(sessionId, { limit: PAGE });
      // Another session was chosen meanwhile, or a later read (a newer event) is under way.
      if (current.current !== sessionId || read !== reads.current) return;
      setState((previous) => ({
        page,
        messages: page.messages,
        running: page.running,
        activeTool: previous.running && page.running ? previous.activeTool : null,
        error: null,
      }));
    } catch (error) {
      if (current.current !== sessionId || read !== reads.current) return;
      setState((previous) => ({ ...previous, error: (error as Error).message }));
    }
  }, [api, sessionId]);

  const loadEarlier = useCallback(async () => {
    if (!sessionId || !state.page || state.page.nextBefore === null) return;
    const earlier = await api.page(sessionId, { limit: PAGE, before: state.page.nextBefore });
    setState((previous) => ({
      ...previous,
      page: previous.page ? { ...previous.page, nextBefore: earlier.nextBefore } : previous.page,
      messages: [...earlier.messages, ...previous.messages],
    }));
  }, [api, sessionId, state.page]);

  useEffect(() => {
    setState({ page: null, messages: [], running: false, activeTool: null, error: null });
    if (!sessionId) return;
    void api.subscribe(sessionId).catch(() => {});
    void reload();
    const off = api.rpc.onEvent((method, params) => {
      if (method !== 'event') return;
      const event = params as ServerEvent;
      if (event.sessionId !== sessionId) return;
      apply(event);
    });
    const apply = (event: ServerEvent) => {
      switch (event.type) {
        case 'turn.start':
          setState((previous) => ({ ...previous, running: true, messages: event.input ? upsert(previous.messages, event.input) : previous.messages }));
          return;
        case 'message.part':
          setState((previous) => ({ ...previous, running: true, messages: appendDelta(previous.messages, event) }));
          return;
        case 'message.finish':
          if (event.message) setState((previous) => ({ ...previous, messages: upsert(previous.messages, event.message!) }));
          return;
        case 'tool.start':
          setState((previous) => ({ ...previous, activeTool: event.toolName ?? 'tool' }));
          return;
        case 'tool.end':
          setState((previous) => ({ ...previous, activeTool: null }));
          return;
        case 'turn.end':
          setState((previous) => ({ ...previous, running: false, activeTool: null }));
          void reload();
          return;
        case 'rewind':
        case 'compact':
        case 'session.changed':
          void reload();
          return;
      }
    };
    return () => {
      off();
      void api.unsubscribe(sessionId).catch(() => {});
    };
  }, [api, sessionId, reload]);

  return { ...state, reload, loadEarlier };
}

function upsert(messages: MessageView[], message: MessageView): MessageView[] {
  const index = messages.findIndex((existing) => existing.id === message.id);
  if (index < 0) return [...messages, message];
  const next = messages.slice();
  next[index] = message;
  return next;
}

function appendDelta(messages: MessageView[], event: ServerEvent): MessageView[] {
  if (!event.messageId || event.subagent) return messages;
  const index = messages.findIndex((existing) => existing.id === event.messageId);
  const partIndex = event.partIndex ?? 0;
  const base: MessageView =
    index >= 0
      ? messages[index]!
      : {
          id: event.messageId,
          parentId: null,
          sessionId: event.sessionId ?? '',
          role: 'assistant',
          kind: 'reply',
          status: 'streaming',
          visibility: 'all',
          turnId: event.turnId ?? null,
          depth: -1,
          createdAt: Date.now(),
          compacted: false,
          summaryOf: null,
          subagentSessionId: null,
          parts: [],
          actions: { rewind: false, edit: false, retry: false, fork: false },
        };
  const parts = base.parts.slice();
  while (parts.length <= partIndex) parts.push({ type: event.partType ?? 'text', text: '' });
  const part = parts[partIndex]!;
  parts[partIndex] = { ...part, text: `${part.text ?? ''}${event.delta ?? ''}` };
  const updated = { ...base, parts };
  if (index < 0) return [...messages, updated];
  const next = messages.slice();
  next[index] = updated;
  return next;
}
