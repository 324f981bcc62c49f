import { memo, type ReactNode, useEffect, useState } from 'react';
import { type Api, describeError } from './api.js';
import type { MessageView, PartView, TurnSummary } from './types.js';

export interface MessageHandlers {
  onRewind: (message: MessageView) => void;
  onEdit: (message: MessageView) => void;
  onRetry: (message: MessageView) => void;
  onFork: (message: MessageView) => void;
  onUndo: (turnId: string, summary: TurnSummary) => void;
}

/**
 * The conversation as the person sees it: inputs, replies (streaming ones as they grow), tool calls
 * folded with their output loaded when opened, and under each turn's final reply the files it
 * changed with an Undo. Tool-result messages are shown inside their call, not apart.
 */
export const MessageList = memo(function MessageList(props: {
  api: Api;
  messages: MessageView[];
  running: boolean;
  handlers: MessageHandlers;
  readOnly?: boolean;
  summaries?: boolean;
}): ReactNode {
  const { messages } = props;
  const results = new Map<string, { messageId: string; index: number; size: number }>();
  for (const message of messages)
    message.parts.forEach((part, index) => {
      if (part.type === 'tool-result' && part.toolCallId) results.set(part.toolCallId, { messageId: message.id, index, size: part.size ?? 0 });
    });
  const lastOfTurn = new Map<string, string>();
  for (const message of messages) if (message.turnId && message.role === 'assistant') lastOfTurn.set(message.turnId, message.id);
  return (
    <ol className="messages" aria-label="Conversation">
      {messages
        .filter((message) => message.role !== 'tool')
        .map((message) => (
          <li
            key={message.id}
            className={`message ${message.role} ${message.kind} ${message.compacted ? 'compacted' : ''}`}
            data-message-id={message.id}
            data-kind={message.kind}
          >
            <MessageBody api={props.api} message={message} results={results} />
            {props.readOnly ? null : <Actions message={message} running={props.running} handlers={props.handlers} />}
            {props.summaries !== false &&
            message.turnId &&
            lastOfTurn.get(message.turnId) === message.id &&
            message.status !== 'streaming' &&
            !(props.running && message === messages.at(-1)) ? (
              <TurnFiles api={props.api} turnId={message.turnId} onUndo={props.readOnly ? null : props.handlers.onUndo} />
            ) : null}
          </li>
        ))}
    </ol>
  );
});

function MessageBody(props: { api: Api; message: MessageView; results: Map<string, { messageId: string; index: number; size: number }> }): ReactNode {
  const { message } = props;
  if (message.kind === 'summary')
    return (
      <div className="summary-marker" role="note">
        Compacted: summary of {message.summaryOf ?? 'the'} earlier messages (what the model is sent instead of them)
        <Texts parts={message.parts} />
      </div>
    );
  return (
    <>
      <div className="who">
        {message.role === 'user' ? 'You' : message.role === 'assistant' ? 'Assistant' : message.role}
        {message.status === 'streaming' ? <span className="streaming"> · writing…</span> : null}
        {message.status === 'error' || message.status === 'interrupted' ? <span className="badge"> {message.status}</span> : null}
        {message.compacted ? <span className="badge">compacted</span> : null}
      </div>
      {message.parts.map((part, index) =>
        part.type === 'tool-call' ? (
          <ToolCall key={`${message.id}-${index}`} api={props.api} part={part} result={props.results.get(part.toolCallId ?? '') ?? null} />
        ) : part.type === 'text' || part.type === 'reasoning' ? (
          // A reply's text takes the focus, so a keyboard can select in it (see SelectionAsk).
          <p
            key={`${message.id}-${index}`}
            className={`text ${part.type}`}
            tabIndex={message.role === 'assistant' && part.type === 'text' ? 0 : undefined}
            title={message.role === 'assistant' && part.type === 'text' ? 'Shift+arrows select; Ctrl+Enter asks in a side chat' : undefined}
          >
            {part.text}
          </p>
        ) : null,
      )}
    </>
  );
}

function Texts(props: { parts: PartView[] }): ReactNode {
  return props.parts
    .filter((part) => part.type === 'text')
    .map((part, index) => (
      <p key={index} className="text">
        {part.text}
      </p>
    ));
}

function ToolCall(props: { api: Api; part: PartView; result: { messageId: string; index: number; size: number } | null }): ReactNode {
  const [output, setOutput] = useState<string | null>(null);
  // A page carries tool outputs by size only; whether one was an error is known once it is loaded.
  const [isError, setIsError] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const onToggle = (event: React.SyntheticEvent<HTMLDetailsElement>) => {
    if (!event.currentTarget.open || output !== null || !props.result) return;
    props.api
      .part(props.result.messageId, props.result.index)
      .then(({ content }) => {
        setIsError(isErrorOutput(content.output));
        setOutput(formatOutput(content.output));
      })
      .catch((error) => setFailed(describeError(error)));
  };
  return (
    <details className="tool-call" onToggle={onToggle}>
      <summary>
        Tool <code>{props.part.toolName}</code> {isError ? <span className="badge">error</span> : null}
      </summary>
      <pre className="tool-input">{JSON.stringify(props.part.input, null, 2)}</pre>
      {props.result ? (
        <pre className="tool-output" aria-label="Tool output">
          {failed ?? output ?? 'Loading output…'}
        </pre>
      ) : (
        <p className="hint">No output yet.</p>
      )}
    </details>
  );
}

/** The AI SDK's tool output types for a failed call. */
function isErrorOutput(output: unknown): boolean {
  const type = output && typeof output === 'object' && 'type' in output ? (output as { type: unknown }).type : null;
  return type === 'error-text' || type === 'error-json';
}

function formatOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && 'value' in output) {
    const value = (output as { value: unknown }).value;
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  return JSON.stringify(output, null, 2);
}

function Actions(props: { message: MessageView; running: boolean; handlers: MessageHandlers }): ReactNode {
  const { message, handlers, running } = props;
  const { actions } = message;
  if (!actions.rewind && !actions.edit && !actions.retry && !actions.fork) return null;
  return (
    <div className="actions" role="toolbar" aria-label="Message actions">
      {actions.edit ? (
        <button type="button" disabled={running} onClick={() => handlers.onEdit(message)}>
          Edit
        </button>
      ) : null}
      {actions.rewind ? (
        <button type="button" disabled={running} onClick={() => handlers.onRewind(message)}>
          Rewind to here
        </button>
      ) : null}
      {actions.retry ? (
        <button type="button" disabled={running} onClick={() => handlers.onRetry(message)}>
          Retry
        </button>
      ) : null}
      {actions.fork ? (
        <button type="button" onClick={() => handlers.onFork(message)}>
          Fork
        </button>
      ) : null}
    </div>
  );
}

function TurnFiles(props: { api: Api; turnId: string; onUndo: ((turnId: string, summary: TurnSummary) => void) | null }): ReactNode {
  const [summary, setSummary] = useState<TurnSummary | null>(null);
  useEffect(() => {
    let live = true;
    props.api
      .turnSummary(props.turnId)
      .then((found) => live && setSummary(found))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [props.api, props.turnId]);
  if (!summary || summary.files.length === 0) return null;
  return (
    <section className="turn-files" aria-label="Files changed in this turn">
      <ul>
        {summary.files.map((file) => (
          <li key={file.path}>
            <code>{file.displayPath}</code> <span className="op">{file.op}</span>{' '}
            {file.binary ? <span className="hint">binary</span> : <Counts added={file.added} removed={file.removed} />}
          </li>
        ))}
      </ul>
      {props.onUndo ? (
        <button type="button" onClick={() => props.onUndo!(props.turnId, summary)}>
          Undo these changes
        </button>
      ) : null}
    </section>
  );
}

function Counts(props: { added: number | null; removed: number | null }): ReactNode {
  return (
    <span className="counts">
      <span className="added">+{props.added ?? '?'}</span> <span className="removed">−{props.removed ?? '?'}</span>
    </span>
  );
}
