import type { Progress } from '../output.js';
import type { Style } from './style.js';

/** One choice of a picker: what is shown, and what choosing it returns. */
export interface PickItem<Value> {
  label: string;
  /** A second, dimmer column (a time, a count). */
  detail?: string;
  value: Value;
}

export interface PickRequest<Value> {
  title: string;
  items: ReadonlyArray<PickItem<Value>>;
  /** The item selected when the picker opens (default: the first). */
  initial?: number;
  /** Shown instead of the list when there is nothing to choose (Esc closes it). */
  empty?: string;
}

/**
 * The chat's terminal: whole lines above the prompt, streamed text while a turn runs, the prompt
 * with its editable draft, pickers, and Ctrl-C. Two implementations: a raw-mode terminal
 * (`TtyChatIO`: line editing, ↑/↓ pickers) and plain lines for pipes (`LineChatIO`).
 */
export interface ChatIO {
  /** True on a terminal: pickers are navigated with keys, and the draft can be edited in place. */
  readonly interactive: boolean;
  readonly style: Style;
  readonly columns: number;
  /** A whole line, printed above the prompt. */
  print(line: string): void;
  /**
   * A line that is not part of what streams (a command typed while a turn runs, and its output):
   * on a terminal it goes above a half-streamed reply line, which then goes on below it, whole.
   */
  printAside(line: string): void;
  /** Streamed text (a reply as it arrives); the prompt is hidden while a turn runs. */
  stream(text: string): void;
  /** The next line the person submits; null when the input ended (Ctrl-D on an empty line, end of a pipe). */
  nextLine(): Promise<string | null>;
  /**
   * Show the prompt (the chat is idle) or hide it (`null`, busy: what is typed is kept for Enter; a
   * terminal shows it on a working line as it is typed).
   */
  setPrompt(prompt: string | null): void;
  /** Put text into the input line, the cursor at its end (the draft handed back by a rewind). */
  setDraft(text: string): void;
  /** Let the person choose one item; null when cancelled (Esc) or when there is nothing to choose. */
  pick<Value>(request: PickRequest<Value>): Promise<Value | null>;
  /** A progress bar for a long scan or copy (a redrawn line on a terminal, a few plain lines otherwise). */
  progress(label: string): Progress;
  /** Ctrl-C: the handler decides (interrupt the turn, clear the line, or exit). */
  onInterrupt(handler: () => void): void;
  close(): void;
}

/** The same terminal, with every printed line put aside from the streamed reply (for a command run while a turn streams). */
export function asideIO(io: ChatIO): ChatIO {
  return {
    get interactive() {
      return io.interactive;
    },
    get style() {
      return io.style;
    },
    get columns() {
      return io.columns;
    },
    print: (line) => io.printAside(line),
    printAside: (line) => io.printAside(line),
    stream: (text) => io.stream(text),
    nextLine: () => io.nextLine(),
    setPrompt: (prompt) => io.setPrompt(prompt),
    setDraft: (text) => io.setDraft(text),
    pick: (request) => io.pick(request),
    progress: (label) => io.progress(label),
    onInterrupt: (handler) => io.onInterrupt(handler),
    close: () => io.close(),
  };
}
