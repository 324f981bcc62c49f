import { emitKeypressEvents } from 'node:readline';
import { barProgress, type Progress } from '../output.js';
import type { ChatIO, PickRequest } from './chat-io.js';
import { LineBuffer } from './line-buffer.js';
import { pickerKey, pickerLines, scrollWindow } from './picker-view.js';
import { inputLine } from './input-line-view.js';
import { displayWidth } from '../render/text-width.js';
import { createStyle, type Style } from './style.js';

/** Bracketed paste: the terminal wraps pasted text in ESC[200~ … ESC[201~, so a pasted block is not typed keys. */
const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

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
 * so CJK and emoji keep the line on one row. While the chat is busy (a turn, a command) the prompt
 * gives way to a working line — a spinner, and what is being typed, as it is typed — drawn on the
 * row the output has reached, or on the row below a half-streamed line (only while typing there);
 * a line typed meanwhile is handled on Enter.
 */
export class TtyChatIO implements ChatIO {
  readonly interactive = true;
  readonly style: Style;
  private readonly buffer = new LineBuffer();
  private prompt: string | null = null;
  /** Streamed text left the cursor in the middle of a line. */
  private midLine = false;
  /** The streamed text on that unfinished line (since its last newline), to redraw it below a line printed aside. */
  private partial = '';
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
  /** The chat is busy (the prompt was hidden): the working line stands in for it. */
  private busy = false;
  /** Where the working line is drawn: on the output's current row, on the row below a half-streamed line, or not. */
  private working: 'none' | 'here' | 'below' = 'none';
  /** The spinner's frame; -1 until its first tick, so a quick command draws no working line at all. */
  private frame = -1;
  private spinner: NodeJS.Timeout | null = null;
  /** Progress bars drawing their own line: the working line waits for them. */
  private progressing = 0;

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
    this.endLine();
    this.write(`${line}\n`);
    this.drawPrompt();
  }

  printAside(line: string): void {
    const rows = Math.max(1, Math.ceil(displayWidth(this.partial) / this.columns));
    // Beside an open picker, at a line's start, or for a line too long to move: printed like any other.
    if (this.picker || !this.midLine || rows >= (this.streams.output.rows || 24) - 1) {
      this.print(line);
      return;
    }
    this.clearPrompt();
    // Take the unfinished streamed line down, print above where it was, and draw it again below.
    this.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ''}\x1b[J${line.replace(/\n/g, '\r\n')}\r\n${this.partial}`);
    this.drawPrompt();
  }

  stream(text: string): void {
    if (text === '') return;
    if (this.picker) {
      this.print(text.replace(/\n$/, ''));
      return;
    }
    this.clearPrompt();
    this.write(text.replace(/\n/g, '\r\n'));
    this.midLine = !text.endsWith('\n');
    const newline = text.lastIndexOf('\n');
    this.partial = newline < 0 ? this.partial + text : text.slice(newline + 1);
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
    this.setBusy(prompt === null);
    if (prompt !== null) this.endLine();
    this.drawPrompt();
  }

  setDraft(text: string): void {
    this.buffer.set(text);
    this.drawPrompt();
  }

  progress(label: string): Progress {
    this.clearPrompt();
    this.endLine();
    const bar = barProgress(label, this.streams.output);
    this.progressing++;
    let finished = false;
    return {
      update: (done, total) => bar.update(done, total),
      step: (text) => bar.step(text),
      done: (summary) => {
        bar.done(summary);
        if (!finished) this.progressing--;
        finished = true;
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
      this.endLine();
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
        const action = key.ctrl ? (key.name === 'c' ? 'cancel' : null) : pickerKey(key.name, state, count);
        if (action === 'cancel') return finish(null);
        if (action === 'choose') return finish(count === 0 ? null : request.items[state.selected]!.value);
        if (action === null) return;
        state.top = scrollWindow(state.selected, count, state.top);
        draw();
      };
      draw();
    });
  }

  close(): void {
    if (this.closed) return;
    this.clearPrompt();
    this.closed = true;
    this.setBusy(false);
    this.prompt = null;
    this.endLine();
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
          this.interrupt();
          return;
        case 'd':
          if (this.buffer.text === '') {
            this.finishInput();
            return;
          }
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
      this.drawPrompt();
      return;
    }
    switch (key.name) {
      case 'return':
      case 'enter':
        this.submit();
        return;
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
        this.recallSent(1);
        return;
      case 'down':
        this.recallSent(-1);
        return;
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
      // Typed while busy: shown as typed, above a half-streamed reply line (which goes on below it).
      this.buffer.take();
      this.printAside(this.style.dim(`› ${line.replace(/\n/g, '\n  ')}`));
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

  private setBusy(busy: boolean): void {
    this.busy = busy;
    if (busy && this.spinner === null) {
      this.frame = -1;
      this.spinner = setInterval(() => {
        this.frame = (this.frame + 1) % SPINNER.length;
        // Beside a half-streamed line the spinner is not redrawn: only typing draws there.
        if (!this.midLine) this.drawPrompt();
      }, 120);
      this.spinner.unref();
    } else if (!busy && this.spinner !== null) {
      clearInterval(this.spinner);
      this.spinner = null;
    }
  }

  /** Erases the input line as drawn: the prompt, or the working line. */
  private clearPrompt(): void {
    if (this.prompt === null) {
      this.clearWorking();
      return;
    }
    // The line never fills the terminal's width, but after the terminal narrowed it may wrap onto more rows.
    const rows = Math.max(1, Math.ceil(this.drawnWidth / this.columns));
    this.write(rows > 1 ? `\x1b[${rows - 1}A\r\x1b[J` : '\r\x1b[2K');
    this.drawnWidth = 0;
  }

  /** Draws the input line: the prompt when idle, else the working line when there is one to show. */
  private drawPrompt(): void {
    if (this.prompt === null) {
      this.drawWorking();
      return;
    }
    this.clearPrompt();
    const line = inputLine(this.prompt, this.buffer, this.columns, this.style);
    this.write(`${line.text}${line.back > 0 ? `\x1b[${line.back}D` : ''}`);
    this.drawnWidth = line.width;
  }

  private clearWorking(): void {
    if (this.working === 'here') this.write('\r\x1b[2K');
    // Save the cursor, go down to the working line, erase it, come back to the end of the streamed text.
    else if (this.working === 'below') this.write('\x1b[s\x1b[1B\r\x1b[2K\x1b[u');
    this.working = 'none';
  }

  private drawWorking(): void {
    this.clearWorking();
    if (!this.busy || this.closed || this.picker || this.progressing > 0) return;
    const typed = this.buffer.text !== '';
    if (!typed && this.frame < 0) return;
    const spin = SPINNER[Math.max(0, this.frame)]!;
    if (!this.midLine) {
      const line = inputLine(this.style.dim(typed ? `${spin} working › ` : `${spin} working…`), this.buffer, this.columns, this.style);
      this.write(`${line.text}${line.back > 0 ? `\x1b[${line.back}D` : ''}`);
      this.working = 'here';
    } else if (typed) {
      // A half-streamed line: the typing goes on the row below. Index down and back up first (scrolling
      // when at the bottom), so that row exists and the saved cursor stays on the streamed text.
      const line = inputLine(this.style.dim(`${spin} working › `), this.buffer, this.columns, this.style);
      this.write(`\x1bD\x1bM\x1b[s\r\n\x1b[2K${line.text}\x1b[u`);
      this.working = 'below';
    }
  }

  /** Ends a half-streamed line, so what follows starts on a line of its own. */
  private endLine(): void {
    if (this.midLine) this.write('\r\n');
    this.midLine = false;
    this.partial = '';
  }

  private write(text: string): void {
    this.streams.output.write(text);
  }
}
