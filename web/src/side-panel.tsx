import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type Api, describeError } from './api.js';
import { ApprovalRequests } from './approvals.js';
import { Composer } from './composer.js';
import { MessageList } from './messages.js';
import { useConversation } from './use-conversation.js';

const NO_ACTIONS = { onRewind() {}, onEdit() {}, onRetry() {}, onFork() {}, onUndo() {} };

/**
 * A side chat beside the main conversation: it starts empty (what it inherited is the model's
 * context, not shown), the main session keeps working meanwhile, and Esc or Close hides it.
 */
export function SidePanel(props: { api: Api; sessionId: string; initial: { text: string; send: boolean }; onClose: () => void }): ReactNode {
  const conversation = useConversation(props.api, props.sessionId);
  const [draft, setDraft] = useState(props.initial.send ? '' : props.initial.text);
  const [focus, setFocus] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const sent = useRef(false);
  const ask = async (text: string) => {
    if (text.trim() === '') return;
    try {
      await props.api.askSide(props.sessionId, text);
      setDraft('');
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the initial question is asked once, when the panel opens
  useEffect(() => {
    if (props.initial.send && !sent.current) {
      sent.current = true;
      void ask(props.initial.text);
    }
    setFocus((count) => count + 1);
  }, []);
  return (
    <aside
      className="side-panel"
      aria-label="Side chat"
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onClose();
      }}
    >
      <header>
        <h2>Side chat</h2>
        <button type="button" onClick={props.onClose}>
          Close side chat
        </button>
      </header>
      {conversation.messages.length === 0 ? <p className="hint">A side question about this session; it does not change the conversation.</p> : null}
      <MessageList api={props.api} messages={conversation.messages} running={conversation.running} handlers={NO_ACTIONS} readOnly summaries={false} />
      <ApprovalRequests api={props.api} sessionId={props.sessionId} />
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <Composer
        value={draft}
        onChange={setDraft}
        onSubmit={ask}
        running={conversation.running}
        focusRequest={focus}
        label="Side chat message"
        placeholder="Ask in the side chat"
      />
    </aside>
  );
}
