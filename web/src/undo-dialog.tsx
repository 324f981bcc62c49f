import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { type Api, describeError } from './api.js';
import { Dialog } from './dialog.js';
import type { PreviewFile, UndoPreview } from './types.js';

type Choice = 'merge' | 'force' | 'skip';

const STATUS_WORDS: Record<string, string> = {
  safe: 'safe',
  external_modified: 'changed since the agent wrote it',
  checkpoint_missing: 'checkpoint missing',
  checkpoint_unreadable: 'unreadable checkpoint',
  file_read_failed: 'unreadable file',
  unsupported_checkpoint: 'cannot be undone',
};

/**
 * Undo a turn's file changes: a preview with each file's status and the diff undoing makes, a
 * choice per conflicting file (merge, shown as the diff it makes; overwrite; skip) and skip for any
 * other, then apply, and afterwards Redo. Shell-made changes are listed apart and included only when asked.
 */
export function UndoDialog(props: { api: Api; sessionId: string; turnId: string; onClose: () => void; onDone: () => void }): ReactNode {
  const { api, sessionId, turnId } = props;
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [shell, setShell] = useState(false);
  const [preview, setPreview] = useState<UndoPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [applied, setApplied] = useState<{ rewindId: string | null; skipped: string[] } | null>(null);
  const [redone, setRedone] = useState(false);

  const load = useCallback(
    async (next: Record<string, Choice>, includeShell: boolean) => {
      try {
        setPreview(await api.previewUndo(sessionId, turnId, next, includeShell));
        setError(null);
      } catch (failure) {
        setError(describeError(failure));
      }
    },
    [api, sessionId, turnId],
  );

  useEffect(() => {
    void load({}, false);
  }, [load]);

  const choose = (path: string, choice: Choice | null) => {
    const next = { ...choices };
    if (choice === null) delete next[path];
    else next[path] = choice;
    setChoices(next);
    void load(next, shell);
  };

  const apply = async () => {
    if (!preview) return;
    setBusy(true);
    try {
      const result = await api.applyUndo(sessionId, preview.previewId);
      setApplied({ rewindId: result.files?.rewindId ?? null, skipped: result.files?.skipped ?? [] });
      setError(null);
      props.onDone();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  const redo = async () => {
    setBusy(true);
    try {
      await api.redo(sessionId, applied?.rewindId ?? undefined);
      setRedone(true);
      setError(null);
      props.onDone();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="Undo this turn's file changes" onClose={props.onClose} className="undo-dialog">
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {applied ? (
        <div>
          <p role="status">
            {redone
              ? 'Redone: the files are back as the agent left them.'
              : applied.skipped.length > 0
                ? 'Undone. The other files are back as they were before this turn.'
                : 'Undone. The files are back as they were before this turn.'}
          </p>
          {applied.skipped.length > 0 ? (
            <p className="hint" data-testid="skipped">
              Skipped, left as they are{redone ? ' (the redo left them too)' : ''}: {applied.skipped.map(displayPath).join(', ')}
            </p>
          ) : null}
          {!redone && applied.rewindId ? (
            <button type="button" data-autofocus onClick={redo} disabled={busy}>
              Redo
            </button>
          ) : null}
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      ) : preview === null ? (
        <p>Checking the files…</p>
      ) : (
        <>
          <ul className="undo-files" aria-label="Files">
            {preview.preview.files.map((file) => (
              <FileRow
                key={file.path}
                file={file}
                diffs={preview.diffs[file.path] ?? null}
                choice={choices[file.path] ?? null}
                onChoose={(choice) => choose(file.path, choice)}
              />
            ))}
          </ul>
          {preview.preview.shellChanges.length > 0 ? (
            <fieldset className="shell-changes">
              <legend>Changes made by shell commands</legend>
              <ul>
                {preview.preview.shellChanges.map((change) => (
                  <li key={change.checkpointId}>
                    <code>{displayPath(change.path)}</code> {change.op} <span className="badge">shell change</span>
                  </li>
                ))}
              </ul>
              <label>
                <input
                  type="checkbox"
                  checked={shell}
                  onChange={(event) => {
                    setShell(event.target.checked);
                    void load(choices, event.target.checked);
                  }}
                />{' '}
                Undo these too
              </label>
            </fieldset>
          ) : null}
          {preview.preview.blockers.length > 0 ? (
            <ul className="blockers" aria-label="Why it cannot be applied yet">
              {preview.preview.blockers.map((blocker) => (
                <li key={blocker}>{blocker}</li>
              ))}
            </ul>
          ) : null}
          <div className="buttons">
            <button type="button" onClick={apply} disabled={busy || !preview.preview.canApply}>
              Apply undo
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

function FileRow(props: {
  file: PreviewFile;
  diffs: { undo: string | null; merge: string | null } | null;
  choice: Choice | null;
  onChoose: (choice: Choice | null) => void;
}): ReactNode {
  const { file } = props;
  const conflict = file.status === 'external_modified';
  const shown = props.choice === 'skip' ? null : props.choice === 'merge' ? (props.diffs?.merge ?? file.mergePatch) : props.diffs?.undo;
  const name = `resolution-${file.path}`;
  return (
    <li className={`undo-file ${file.status}`} data-path={file.path}>
      <div>
        <code>{displayPath(file.path)}</code> <span className={`status ${file.status}`}>{STATUS_WORDS[file.status] ?? file.status}</span>{' '}
        <span className="hint">{file.action}</span>
      </div>
      {file.reason ? <p className="reason">{file.reason}</p> : null}
      {conflict ? (
        <fieldset className="resolution">
          <legend>How to undo {displayPath(file.path)}</legend>
          <label>
            <input type="radio" name={name} disabled={!file.mergeAvailable} checked={props.choice === 'merge'} onChange={() => props.onChoose('merge')} /> Merge
            {file.mergeAvailable ? ' (keep the later edits)' : ' (not available: the changes overlap)'}
          </label>
          <label>
            <input type="radio" name={name} checked={props.choice === 'force'} onChange={() => props.onChoose('force')} /> Overwrite (the current content is
            kept for redo)
          </label>
          <label>
            <input type="radio" name={name} checked={props.choice === 'skip'} onChange={() => props.onChoose('skip')} /> Skip (leave it as it is; undo the rest)
          </label>
        </fieldset>
      ) : (
        <label className="skip-file">
          <input type="checkbox" checked={props.choice === 'skip'} onChange={(event) => props.onChoose(event.target.checked ? 'skip' : null)} /> Skip{' '}
          {displayPath(file.path)} (leave it as it is)
        </label>
      )}
      {props.choice === 'skip' ? <p className="hint">Left as it is: this undo does not touch it, nor does a redo of it.</p> : null}
      {shown ? (
        <pre className="diff" aria-label={props.choice === 'merge' ? `Merge result for ${displayPath(file.path)}` : `Diff for ${displayPath(file.path)}`}>
          {shown.split('\n').map((line, index) => (
            <span
              key={index}
              className={line.startsWith('+') && !line.startsWith('+++') ? 'added' : line.startsWith('-') && !line.startsWith('---') ? 'removed' : ''}
            >
              {line}
              {'\n'}
            </span>
          ))}
        </pre>
      ) : null}
    </li>
  );
}

export function displayPath(key: string): string {
  return key.startsWith('workspace:') ? key.slice('workspace:'.length) : key;
}
