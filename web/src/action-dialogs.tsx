import { type ReactNode, useState } from 'react';
import { type Api, describeError } from './api.js';
import { Dialog } from './dialog.js';
import type { MessageView } from './types.js';

export function inputTextOf(message: MessageView): string {
  return message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n\n');
}

/** The one confirmation both "Rewind to here" and the `/rewind` list lead to. */
export function RewindConfirm(props: { text: string; onConfirm: () => Promise<void>; onClose: () => void }): ReactNode {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title="Rewind the conversation?" onClose={props.onClose} className="rewind-confirm">
      <p>
        The conversation goes back to before this message; it comes back in the input box to edit and send again. Files are left as they are (undo them from a
        turn's summary). Redo brings the conversation back.
      </p>
      <blockquote className="quoted">{props.text}</blockquote>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <div className="buttons">
        <button
          type="button"
          data-autofocus
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await props.onConfirm();
            } catch (failure) {
              setError(describeError(failure));
              setBusy(false);
            }
          }}
        >
          Rewind
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** Edit the last input and send it again, keeping the turn's file changes or undoing them first. */
export function EditDialog(props: { api: Api; sessionId: string; message: MessageView; onClose: () => void; onStarted: () => void }): ReactNode {
  const [text, setText] = useState(inputTextOf(props.message));
  const [workspace, setWorkspace] = useState<'preserve' | 'rewind'>('preserve');
  const [error, setError] = useState<{ text: string; reasons: string[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    try {
      await props.api.edit(props.sessionId, props.message.id, text, workspace);
      props.onStarted();
    } catch (failure) {
      setError({ text: describeError(failure), reasons: reasonsOf(failure) });
      setBusy(false);
    }
  };
  return (
    <Dialog title="Edit your message" onClose={props.onClose} className="edit-dialog">
      <label className="block">
        Message
        <textarea data-autofocus value={text} rows={5} onChange={(event) => setText(event.target.value)} />
      </label>
      <fieldset>
        <legend>This turn's file changes</legend>
        <label>
          <input type="radio" name="edit-files" checked={workspace === 'preserve'} onChange={() => setWorkspace('preserve')} /> Keep them
        </label>
        <label>
          <input type="radio" name="edit-files" checked={workspace === 'rewind'} onChange={() => setWorkspace('rewind')} /> Undo them first
        </label>
      </fieldset>
      {error ? (
        <div role="alert" className="error">
          <p>{error.text}</p>
          {error.reasons.length > 0 ? (
            <ul>
              {error.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <div className="buttons">
        <button type="button" disabled={busy || text.trim() === ''} onClick={submit}>
          Send edited message
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** The reasons a refusal carries (an edit's files that are not safe to undo, with why). */
function reasonsOf(failure: unknown): string[] {
  const details = (failure as { data?: { details?: unknown } })?.data?.details as Record<string, unknown> | undefined;
  const preview = (details?.preview ?? details) as { files?: Array<{ path: string; status: string; reason: string | null }>; blockers?: string[] } | undefined;
  const reasons: string[] = [];
  for (const file of preview?.files ?? []) if (file.status !== 'safe') reasons.push(`${file.path}: ${file.reason ?? file.status}`);
  for (const blocker of preview?.blockers ?? []) if (!reasons.includes(blocker)) reasons.push(blocker);
  return reasons;
}

/** Fork at a completed turn's final reply: in the same directory or an isolated copy (its path shown). */
export function ForkDialog(props: { api: Api; sessionId: string; message: MessageView; onClose: () => void; onOpen: (sessionId: string) => void }): ReactNode {
  const [mode, setMode] = useState<'shared' | 'isolated'>('shared');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<{ id: string; workdir: string | null } | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [files, setFiles] = useState<Array<{ name: string; kind: string; size: number }> | null>(null);
  const copy = async (path: string) => {
    try {
      await navigator.clipboard.writeText(path);
      setCopied('Copied.');
    } catch {
      // No clipboard access: select the path so Ctrl+C copies it.
      const node = document.querySelector('.fork-path');
      if (node) getSelection()?.selectAllChildren(node);
      setCopied('Selected: press Ctrl+C to copy.');
    }
  };
  const showFiles = async (sessionId: string) => {
    try {
      setFiles((await props.api.listWorkspace(sessionId)).entries);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const submit = async () => {
    setBusy(true);
    try {
      const result = await props.api.fork(props.sessionId, props.message.id, mode);
      setMade({ id: result.session.id, workdir: result.workdir ?? result.session.workdir });
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Fork from this reply" onClose={props.onClose} className="fork-dialog">
      {made ? (
        <>
          <p role="status">
            Forked. Its directory: <code className="fork-path">{made.workdir ?? '(none)'}</code>
          </p>
          {copied ? <p className="hint">{copied}</p> : null}
          {error ? (
            <p role="alert" className="error">
              {error}
            </p>
          ) : null}
          {files ? (
            <ul className="fork-files" aria-label="Files in the fork's directory">
              {files.map((file) => (
                <li key={file.name}>
                  <code>
                    {file.name}
                    {file.kind === 'directory' ? '/' : ''}
                  </code>{' '}
                  <span className="hint">{file.kind === 'file' ? `${file.size} bytes` : file.kind}</span>
                </li>
              ))}
            </ul>
          ) : null}
          <div className="buttons">
            <button type="button" data-autofocus onClick={() => props.onOpen(made.id)}>
              Open the fork
            </button>
            {made.workdir ? (
              <button type="button" onClick={() => void copy(made.workdir!)}>
                Copy path
              </button>
            ) : null}
            <button type="button" onClick={() => void showFiles(made.id)}>
              Show its files
            </button>
            <button type="button" onClick={props.onClose}>
              Close
            </button>
          </div>
        </>
      ) : (
        <>
          <fieldset>
            <legend>Where the fork works</legend>
            <label>
              <input type="radio" name="fork-mode" checked={mode === 'shared'} onChange={() => setMode('shared')} /> The same directory
            </label>
            <label>
              <input type="radio" name="fork-mode" checked={mode === 'isolated'} onChange={() => setMode('isolated')} /> An isolated copy
            </label>
          </fieldset>
          {error ? (
            <p role="alert" className="error">
              {error}
            </p>
          ) : null}
          <div className="buttons">
            <button type="button" data-autofocus disabled={busy} onClick={submit}>
              Fork
            </button>
            <button type="button" onClick={props.onClose}>
              Cancel
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
