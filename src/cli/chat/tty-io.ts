import { emitKeypressEvents } from 'node:readline';
import { barProgress, type Progress } from '../output.js';
import type { ChatIO, PickRequest } from './chat-io.js';
import { LineBuffer } from './line-buffer.js';
import { pickerLines, scrollWindow } from './picker-view.js';
import { clipWidth, displayWidth, graphemes } from '../render/text-width.js';
import { createStyle, stripAnsi, type Style } from './style.js';

/** Bracketed paste: the terminal wraps pasted text in ESC[200~ … ESC[201~, so a pasted block is not typed keys. */
const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  sequence?: string;
}

type KeyHandler = (text: string | undefined, key: Key) => void;

export interface TtyStreams {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/**
 * The chat on a terminal, in raw mode: an editable prompt line (←/→, Home/End, Ctrl-A/E/U/K/W by
 * grapheme, ↑/↓ through what was sent before), lines printed above it, pickers drawn below the
 * output and navigated with ↑/↓, Enter and Esc. A pasted block (bracketed paste) goes into the line
 * with its newlines, shown as `↵`, and is sent as one message on Enter. Widths are display columns,
 * so CJK and emoji keep the line on one row. While a turn runs the prompt is hidden; what is typed
 * is kept and handled on Enter.
 */
export class TtyChatIO implements ChatIO {
  readonly interactive = true;
  readonly style: Style;
  private readonly buffer = new LineBuffer();
  private prompt: string | null = null;
  /** Streamed text left the cursor in the middle of a line. */
  private midLine = false;
  private readonly lines: string[] = [];
  private readonly waiting: Array<(line: string | null) => void> = [];
  private ended = false;
  private interrupt: () => void = () => {};
  private keyHandler: KeyHandler;
  private readonly sent: string[] = [];
  private recall = -1;
  private closed = false;
  /** The open picker, so lines printed meanwhile go above it. */
  private picker: { erase(): void; draw(): void } | null = null;
  /** Text of a paste in progress (between ESC[200~ and ESC[201~), null when not pasting. */
  private pasted: string | null = null;
  /** Columns the prompt line took when last drawn, to erase all of it after the terminal narrowed. */
  private drawnWidth = 0;

  constructor(private readonly streams: TtyStreams) {
    this.style = createStyle(!process.env.NO_COLOR);
    this.keyHandler = (text, key) => this.onPromptKey(text, key);
    // A lone Esc is told from an escape sequence by a pause; 50 ms instead of readline's 500 keeps Esc snappy.
    emitKeypressEvents(streams.input, { escapeCodeTimeout: 50 } as never);
    streams.input.setRawMode(true);
    streams.input.on('keypress', this.onKeypress);
    streams.input.on('end', this.onEnd);
    streams.input.resume();
    streams.output.on('resize', this.onResize);
    this.write(PASTE_ON);
    // An exit that skips close() (an uncaught error) still turns bracketed paste off for the shell.
    process.on('exit', this.onExit);
  }

  get columns(): number {
    return this.streams.output.columns || 80;
  }

  print(line: string): void {
    if (this.picker) {
      // Above an open picker: take it down, print, draw it again below.
      this.picker.erase();
      this.write(`${line}\n`);
      this.picker.draw();
      return;
    }
    this.clearPrompt();
    if (this.midLine) this.write('\n');
    this.midLine = false;
    this.write(`${line}\n`);
    this.drawPrompt();
  }

  stream(text: string): void {
    if (text === '') return;
    if (this.picker) return this.print(text.replace(/\n$/, ''));
    this.clearPrompt();
    this.write(text.replace(/\n/g, '\r\n'));
    this.midLine = !text.endsWith('\n');
    this.drawPrompt();
  }

  nextLine(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  setPrompt(prompt: string | null): void {
    this.clearPrompt();
    this.prompt = prompt;
    if (prompt !== null && this.midLine) {
      this.write('\n');
      this.midLine = false;
    }
    this.drawPrompt();
  }

  setDraft(text: string): void {
    this.buffer.set(text);
    this.drawPrompt();
  }

  progress(label: string): Progress {
    this.clearPrompt();
    if (this.midLine) this.write('\n');
    this.midLine = false;
    const bar = barProgress(label, this.streams.output);
    return {
      update: (done, total) => bar.update(done, total),
      step: (text) => bar.step(text),
      done: (summary) => {
        bar.done(summary);
        this.drawPrompt();
      },
    };
  }

  onInterrupt(handler: () => void): void {
    this.interrupt = handler;
  }

  pick<Value>(request: PickRequest<Value>): Promise<Value | null> {
    return new Promise((resolve) => {
      const count = request.items.length;
      const state = { selected: Math.min(Math.max(request.initial ?? 0, 0), Math.max(0, count - 1)), top: 0 };
      state.top = scrollWindow(state.selected, count, count);
      let drawn = 0;
      const savedPrompt = this.prompt;
      this.clearPrompt();
      this.prompt = null;
      if (this.midLine) this.write('\n');
      this.midLine = false;
      const erase = () => {
        if (drawn > 0) this.write(`\x1b[${drawn}A\r\x1b[J`);
        drawn = 0;
      };
      const draw = () => {
        erase();
        const lines = pickerLines(request, state, this.style, this.columns);
        this.write(`${lines.join('\n')}\n`);
        drawn = lines.length;
      };
      const previous = this.keyHandler;
      const outer = this.picker;
      this.picker = { erase, draw };
      const finish = (value: Value | null) => {
        erase();
        this.picker = outer;
        this.keyHandler = previous;
        this.prompt = savedPrompt;
        this.drawPrompt();
        resolve(value);
      };
      this.keyHandler = (_text, key) => {
        if (key.ctrl && key.name === 'c') return finish(null);
        switch (key.name) {
          case 'escape':
            return finish(null);
          case 'return':
          case 'enter':
            return finish(count === 0 ? null : request.items[state.selected]!.value);
          case 'up':
            if (count > 0) state.selected = (state.selected - 1 + count) % count;
            break;
          case 'down':
            if (count > 0) state.selected = (state.selected + 1) % count;
            break;
          case 'pageup':
            state.selected = Math.max(0, state.selected - 10);
            break;
          case 'pagedown':
            state.selected = Math.min(count - 1, state.selected + 10);
            break;
          case 'home':
            state.selected = 0;
            break;
          case 'end':
            state.selected = Math.max(0, count - 1);
            break;
          default:
            return;
        }
        state.top = scrollWindow(state.selected, count, state.top);
        draw();
      };
      draw();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearPrompt();
    this.prompt = null;
    if (this.midLine) this.write('\n');
    this.streams.input.off('keypress', this.onKeypress);
    this.streams.input.off('end', this.onEnd);
    this.streams.output.off('resize', this.onResize);
    process.off('exit', this.onExit);
    this.write(PASTE_OFF);
    if (this.streams.input.isTTY) this.streams.input.setRawMode(false);
    this.streams.input.pause();
    this.finishInput();
  }

  private readonly onKeypress = (text: string | undefined, key: Key | undefined) => {
    const pressed = key ?? { sequence: text };
    if (pressed.name === 'paste-start') {
      this.pasted = '';
      return;
    }
    if (this.pasted !== null) {
      if (pressed.name === 'paste-end') {
        const pasted = this.pasted.replace(/\r\n?/g, '\n');
        this.pasted = null;
        return this.onPaste(pasted);
      }
      // Pasted text only: no key inside a paste acts (an Enter, a Ctrl-C or an arrow in it is text or nothing).
      const sequence = pressed.sequence ?? text ?? '';
      if (!sequence.startsWith('\x1b')) this.pasted += sequence.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, '');
      return;
    }
    this.keyHandler(text, pressed);
  };

  private onPaste(text: string): void {
    // A picker takes keys, not text.
    if (this.picker || this.closed || text === '') return;
    this.buffer.insert(text);
    this.drawPrompt();
  }

  private readonly onResize = () => this.drawPrompt();

  private readonly onExit = () => {
    if (!this.closed) this.write(PASTE_OFF);
  };

  private readonly onEnd = () => this.finishInput();

  private finishInput(): void {
    this.ended = true;
    for (const resolve of this.waiting.splice(0)) resolve(null);
  }

  private onPromptKey(text: string | undefined, key: Key): void {
    if (key.ctrl) {
      switch (key.name) {
        case 'c':
          return this.interrupt();
        case 'd':
          if (this.buffer.text === '') return this.finishInput();
          this.buffer.deleteForward();
          break;
        case 'a':
          this.buffer.home();
          break;
        case 'e':
          this.buffer.end();
          break;
        case 'u':
          this.buffer.killBefore();
          break;
        case 'k':
          this.buffer.killAfter();
          break;
        case 'w':
          this.buffer.deleteWord();
          break;
        case 'b':
          this.buffer.left();
          break;
        case 'f':
          this.buffer.right();
          break;
        default:
          return;
      }
      return this.drawPrompt();
    }
    switch (key.name) {
      case 'return':
      case 'enter':
        return this.submit();
      case 'backspace':
        this.buffer.backspace();
        break;
      case 'delete':
        this.buffer.deleteForward();
        break;
      case 'left':
        this.buffer.left();
        break;
      case 'right':
        this.buffer.right();
        break;
      case 'home':
        this.buffer.home();
        break;
      case 'end':
        this.buffer.end();
        break;
      case 'up':
        return this.recallSent(1);
      case 'down':
        return this.recallSent(-1);
      case 'escape':
      case 'tab':
        return;
      default:
        if (text === undefined || key.meta || /[\x00-\x08\x0b-\x1f\x7f]/.test(text)) return;
        this.buffer.insert(text.replace(/\r?\n|\r/g, ' '));
    }
    this.drawPrompt();
  }

  private submit(): void {
    const line = this.buffer.text;
    this.recall = -1;
    if (line.trim() !== '' && this.sent[0] !== line) this.sent.unshift(line);
    if (this.prompt !== null) {
      // Leave the submitted line on screen as it was typed.
      this.buffer.end();
      this.drawPrompt();
      this.buffer.take();
      this.write('\r\n');
      this.drawnWidth = 0;
    } else {
      this.buffer.take();
      this.clearPrompt();
      if (this.midLine) this.write('\r\n');
      this.midLine = false;
      this.write(`${this.style.dim(`› ${line.replace(/\n/g, '\r\n  ')}`)}\r\n`);
    }
    const resolve = this.waiting.shift();
    if (resolve) resolve(line);
    else this.lines.push(line);
  }

  private recallSent(step: number): void {
    if (this.prompt === null || this.sent.length === 0) return;
    this.recall = Math.min(this.sent.length - 1, Math.max(-1, this.recall + step));
    this.buffer.set(this.recall === -1 ? '' : this.sent[this.recall]!);
    this.drawPrompt();
  }

  private clearPrompt(): void {
    if (this.prompt === null) return;
    // The line never fills the terminal's width, but after the terminal narrowed it may wrap onto more rows.
    const rows = Math.max(1, Math.ceil(this.drawnWidth / this.columns));
    this.write(rows > 1 ? `\x1b[${rows - 1}A\r\x1b[J` : '\r\x1b[2K');
    this.drawnWidth = 0;
  }

  private drawPrompt(): void {
    if (this.prompt === null) return;
    this.clearPrompt();
    const width = this.columns - 1;
    let prompt = this.prompt;
    if (displayWidth(prompt) > width - 10) prompt = clipWidth(stripAnsi(prompt), Math.max(1, width - 10));
    const promptWidth = displayWidth(prompt);
    // A long line scrolls horizontally so the cursor stays visible on one terminal row.
    const room = Math.max(1, width - promptWidth);
    const before = graphemes(this.buffer.before).map(shown);
    const after = graphemes(this.buffer.after).map(shown);
    let start = before.length;
    let used = 0;
    while (start > 0 && used + displayWidth(before[start - 1]!) < room) used += displayWidth(before[--start]!);
    let end = 0;
    let back = 0;
    while (end < after.length && used + back + displayWidth(after[end]!) <= room) back += displayWidth(after[end++]!);
    const dimmed = (text: string) => (text === '↵' ? this.style.dim(text) : text);
    const visible = [...before.slice(start), ...after.slice(0, end)].map(dimmed).join('');
    this.write(`${prompt}${visible}${back > 0 ? `\x1b[${back}D` : ''}`);
    this.drawnWidth = promptWidth + used + back;
  }

  private write(text: string): void {
    this.streams.output.write(text);
  }
}

/** How a grapheme of the input line is drawn: a newline of a pasted block as `↵`, a tab as a space, other controls as nothing. */
function shown(grapheme: string): string {
  if (grapheme === '\n') return '↵';
  if (grapheme === '\t') return ' ';
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x1f\x7f]$/.test(grapheme) ? '' : grapheme;
}
