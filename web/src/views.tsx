import { type ReactNode, useEffect, useState } from 'react';
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

/**
 * "Ask in side chat" for text selected in a reply: shown while a selection inside an assistant
 * message exists, reachable by Tab like any button.
 */
export function SelectionAsk(props: { onAsk: (text: string) => void }): ReactNode {
  const [text, setText] = useState('');
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
