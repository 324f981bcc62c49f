import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type Api, describeError } from './api.js';
import { MessageList } from './messages.js';
import type { ConversationPage } from './types.js';

const NO_ACTIONS = { onRewind() {}, onEdit() {}, onRetry() {}, onFork() {}, onUndo() {} };

/** A branch of the conversation tree read up to one input (what a rewind, edit or retry left), read-only. */
export function BranchView(props: { api: Api; sessionId: string; at: string; onClose: () => void }): ReactNode {
  const [page, setPage] = useState<ConversationPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    props.api
      .page(props.sessionId, { at: props.at, limit: 200 })
      .then(setPage)
      .catch((failure) => setError(describeError(failure)));
  }, [props.api, props.sessionId, props.at]);
  return (
    <section className="branch-view" aria-label="Branch">
      <div className="banner" role="note">
        Viewing a branch up to this input (read-only).{' '}
        <button type="button" onClick={props.onClose}>
          Back to the conversation
        </button>
      </div>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {page ? <MessageList api={props.api} messages={page.messages} running={false} handlers={NO_ACTIONS} readOnly /> : null}
    </section>
  );
}

/** Keys that extend the selection inside a focused reply text: Shift with arrows (Ctrl/Alt: by word), Home and End. */
const EXTEND: Record<string, ['forward' | 'backward', 'character' | 'word' | 'lineboundary' | 'line']> = {
  ArrowRight: ['forward', 'character'],
  ArrowLeft: ['backward', 'character'],
  ArrowDown: ['forward', 'line'],
  ArrowUp: ['backward', 'line'],
  End: ['forward', 'lineboundary'],
  Home: ['backward', 'lineboundary'],
};

/** Selecting text in a focused reply from the keyboard (static text has no caret of its own). */
function selectWithKeys(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  if (!target?.matches('.message.assistant p.text')) return false;
  const selection = document.getSelection();
  if (!selection) return false;
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'a') {
    selection.selectAllChildren(target);
    return true;
  }
  const step = EXTEND[event.key];
  if (!event.shiftKey || !step) return false;
  // The first Shift+key starts the selection at the edge of the text it moves away from.
  if (!selection.anchorNode || !target.contains(selection.anchorNode)) {
    selection.selectAllChildren(target);
    if (step[0] === 'forward') selection.collapseToStart();
    else selection.collapseToEnd();
  }
  const granularity = step[1] === 'character' && (event.ctrlKey || event.altKey) ? 'word' : step[1];
  (selection as Selection & { modify(alter: string, direction: string, granularity: string): void }).modify('extend', step[0], granularity);
  return true;
}

/**
 * "Ask in side chat" for text selected in a reply: shown while a selection inside an assistant
 * message exists, reachable by Tab like any button. From the keyboard: focus a reply's text (Tab),
 * select with Shift and the arrows (Ctrl+A: all of it), then Ctrl+Enter or the button.
 */
export function SelectionAsk(props: { onAsk: (text: string) => void }): ReactNode {
  const [text, setText] = useState('');
  const onAsk = useRef(props.onAsk);
  onAsk.current = props.onAsk;
  useEffect(() => {
    const keys = (event: KeyboardEvent) => {
      if (selectWithKeys(event)) {
        event.preventDefault();
        return;
      }
      const target = event.target as HTMLElement | null;
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && target?.closest('.message.assistant')) {
        const chosen = document.getSelection()?.toString().trim() ?? '';
        if (chosen === '') return;
        event.preventDefault();
        onAsk.current(chosen);
        setText('');
      }
    };
    document.addEventListener('keydown', keys);
    return () => document.removeEventListener('keydown', keys);
  }, []);
  useEffect(() => {
    const update = () => {
      const selection = document.getSelection();
      const chosen = selection?.toString().trim() ?? '';
      const node = selection?.anchorNode ?? null;
      const element = node instanceof Element ? node : (node?.parentElement ?? null);
      const inReply = element?.closest('.message.assistant') !== null && element !== null;
      if (chosen !== '' && inReply) setText(chosen);
      else if (chosen === '' && !(document.activeElement as HTMLElement | null)?.classList.contains('ask-side')) setText('');
    };
    document.addEventListener('selectionchange', update);
    return () => document.removeEventListener('selectionchange', update);
  }, []);
  if (text === '') return null;
  return (
    <div className="selection-ask">
      <button
        type="button"
        className="ask-side"
        onMouseDown={(event) => event.preventDefault()}
        onClick={() => {
          props.onAsk(text);
          setText('');
        }}
      >
        Ask in side chat
      </button>
      <span className="hint">“{text.length > 60 ? `${text.slice(0, 59)}…` : text}”</span>
    </div>
  );
}
