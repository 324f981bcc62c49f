import { type ReactNode, useEffect, useRef } from 'react';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: focus moves into it when it opens, Tab and Shift+Tab cycle inside it, Esc closes
 * it, and focus goes back to what had it before when it closes.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; labelledBy?: string; className?: string }): ReactNode {
  const ref = useRef<HTMLDivElement>(null);
  const { onClose } = props;
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  // When the focused control goes away (a button replaced by the result), focus comes back inside.
  useEffect(() => {
    const root = ref.current;
    if (root && !root.contains(document.activeElement))
      (root.querySelector<HTMLElement>('[data-autofocus]') ?? root.querySelector<HTMLElement>(FOCUSABLE) ?? root).focus();
  });
  // Esc closes the dialog wherever focus is (the page behind it is inert to the keyboard).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented || ref.current?.contains(event.target as Node)) return;
      event.preventDefault();
      closeRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const root = ref.current!;
    const first = root.querySelector<HTMLElement>('[data-autofocus]') ?? root.querySelector<HTMLElement>(FOCUSABLE) ?? root;
    first.focus();
    return () => {
      if (previous && document.contains(previous)) previous.focus();
    };
  }, []);
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== 'Tab') return;
    const items = [...ref.current!.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };
  const titleId = `dialog-title-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div className="backdrop">
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className={`dialog ${props.className ?? ''}`}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}
