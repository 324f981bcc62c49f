import { type ReactNode, useEffect, useRef } from 'react';

/**
 * The input box. Enter sends, Shift+Enter starts a new line. `focusRequest` changing moves focus
 * into it with the cursor at the end (after a rewind put the original draft back).
 */
export function Composer(props: {
  value: string;
  onChange: (value: string) => void;
  onSubmit: (text: string) => void;
  onStop?: () => void;
  running: boolean;
  focusRequest: number;
  label: string;
  placeholder?: string;
}): ReactNode {
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (props.focusRequest === 0) return;
    const box = ref.current;
    if (!box) return;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }, [props.focusRequest]);
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit(props.value);
      }}
    >
      <textarea
        ref={ref}
        aria-label={props.label}
        placeholder={props.placeholder ?? 'Ask, or type /rewind, /side, /btw'}
        value={props.value}
        rows={3}
        onChange={(event) => props.onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            props.onSubmit(props.value);
          }
        }}
      />
      <div className="composer-buttons">
        <button type="submit">Send</button>
        {props.running && props.onStop ? (
          <button type="button" onClick={props.onStop}>
            Stop
          </button>
        ) : null}
      </div>
    </form>
  );
}
