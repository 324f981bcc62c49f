import { type ReactNode, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { RewindTarget } from './types.js';

/** Each option is one line of this height, so a long list draws only the rows in view. */
const ROW = 22;
const VIEW = 240;
/** Above this many inputs only the rows around the view are in the DOM (with aria-setsize/posinset). */
const WINDOWED = 200;
const OVERSCAN = 15;
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

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
  const [scrollTop, setScrollTop] = useState(0);

  // New inputs select the newest during the same render (not in an effect after it is painted).
  const [shownTargets, setShownTargets] = useState(targets);
  if (shownTargets !== targets) {
    setShownTargets(targets);
    if (targets) setSelected(targets.length - 1);
  }

  // Focus follows the list as it loads: the wrapper first, the listbox once the inputs are there.
  useEffect(() => {
    if (targets === null || targets.length >= 0) (listRef.current ?? rootRef.current)?.focus();
  }, [targets]);

  // The selection scrolls into view: rows have a fixed height, so no row needs to exist to find it.
  // A layout effect, so the list is never painted (or read by a script) scrolled to the top first;
  // it reruns when the inputs arrive again, since a reload draws a new list scrolled to the top.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (selected < 0 || !list || !targets) return;
    const top = selected * ROW;
    const height = list.clientHeight || VIEW;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW > list.scrollTop + height) list.scrollTop = top + ROW - height;
    setScrollTop(list.scrollTop);
  }, [selected, targets]);

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

  const view = windowOf(targets?.length ?? 0, scrollTop);
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
        <ul
          ref={listRef}
          role="listbox"
          aria-label="Your messages"
          aria-activedescendant={activeId}
          tabIndex={0}
          className="rewind-options"
          onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
        >
          {view.start > 0 ? <li role="presentation" aria-hidden="true" style={{ height: view.start * ROW }} /> : null}
          {targets.slice(view.start, view.end).map((target, offset) => {
            const index = view.start + offset;
            return (
              <li
                key={target.messageId}
                id={`rewind-target-${target.messageId}`}
                role="option"
                aria-selected={index === selected}
                aria-setsize={targets.length}
                aria-posinset={index + 1}
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
                <time>{time.format(target.createdAt)}</time>
              </li>
            );
          })}
          {view.end < targets.length ? <li role="presentation" aria-hidden="true" style={{ height: (targets.length - view.end) * ROW }} /> : null}
        </ul>
      )}
    </div>
  );
}

/** Which rows are drawn: all of a short list; of a long one, those in view and a margin, the rest as two spacers. */
function windowOf(count: number, scrollTop: number): { start: number; end: number } {
  if (count <= WINDOWED) return { start: 0, end: count };
  const start = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  return { start, end: Math.min(count, Math.ceil((scrollTop + VIEW) / ROW) + OVERSCAN) };
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line || '(empty)';
}
