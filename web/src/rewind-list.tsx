import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { RewindTarget } from './types.js';

/**
 * The `/rewind` list: every input the person typed on the session's path (those a compaction hid
 * from the model too), newest selected. ↑/↓ move the selection and scroll it into view, Enter or a
 * click asks for the same confirmation as a message's own "Rewind to here", Esc closes with no change.
 */
export function RewindList(props: { targets: RewindTarget[] | null; onChoose: (target: RewindTarget) => void; onClose: () => void }): ReactNode {
  const { targets } = props;
  const [selected, setSelected] = useState(() => (targets ? targets.length - 1 : -1));
  const listRef = useRef<HTMLUListElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (targets) setSelected(targets.length - 1);
  }, [targets]);

  // Focus follows the list as it loads: the wrapper first, the listbox once the inputs are there.
  useEffect(() => {
    if (targets === null || targets.length >= 0) (listRef.current ?? rootRef.current)?.focus();
  }, [targets]);

  useEffect(() => {
    if (selected < 0) return;
    listRef.current?.querySelector<HTMLElement>(`[data-index="${selected}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      props.onClose();
      return;
    }
    if (!targets || targets.length === 0) return;
    if (event.key === 'ArrowUp') {
      event.preventDefault();
      setSelected((index) => Math.max(0, index - 1));
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      setSelected((index) => Math.min(targets.length - 1, index + 1));
    } else if (event.key === 'Home') {
      event.preventDefault();
      setSelected(0);
    } else if (event.key === 'End') {
      event.preventDefault();
      setSelected(targets.length - 1);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const target = targets[selected];
      if (target) props.onChoose(target);
    }
  };

  const activeId = selected >= 0 && targets?.[selected] ? `rewind-target-${targets[selected]!.messageId}` : undefined;
  return (
    <div ref={rootRef} className="rewind-list" aria-label="Rewind to an earlier input" tabIndex={-1} onKeyDown={onKeyDown}>
      <div className="rewind-list-head">
        <strong>Rewind the conversation to…</strong>
        <span className="hint">↑/↓ choose · Enter rewind · Esc close</span>
      </div>
      {targets === null ? (
        <p className="empty">Loading…</p>
      ) : targets.length === 0 ? (
        <p className="empty" role="status">
          Nothing to rewind to: no message typed in this conversation yet. Press Esc to close.
        </p>
      ) : (
        <ul ref={listRef} role="listbox" aria-label="Your messages" aria-activedescendant={activeId} tabIndex={0} className="rewind-options">
          {targets.map((target, index) => (
            <li
              key={target.messageId}
              id={`rewind-target-${target.messageId}`}
              role="option"
              aria-selected={index === selected}
              data-index={index}
              data-message-id={target.messageId}
              className={index === selected ? 'selected' : ''}
              onClick={() => {
                setSelected(index);
                props.onChoose(target);
              }}
            >
              <span className="preview">{preview(target.text)}</span>
              {target.compacted ? <span className="badge">before compaction</span> : null}
              <time dateTime={new Date(target.createdAt).toISOString()}>{new Date(target.createdAt).toLocaleTimeString()}</time>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line || '(empty)';
}
