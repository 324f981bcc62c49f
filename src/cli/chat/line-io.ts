import { createInterface, type Interface } from 'node:readline';
import { lineProgress, type Progress } from '../output.js';
import type { ChatIO, PickRequest } from './chat-io.js';
import { createStyle, type Style } from './style.js';

/**
 * The chat over plain streams (a pipe, a file, a test): one line in, whole lines out. A picker
 * prints numbered choices and reads the number (an empty line cancels); a draft handed back by a
 * rewind is printed, since there is no input line to put it in.
 */
export class LineChatIO implements ChatIO {
  readonly interactive = false;
  readonly style: Style = createStyle(false);
  readonly columns = 100;
  private readonly reader: Interface;
  private readonly lines: string[] = [];
  private readonly waiting: Array<(line: string | null) => void> = [];
  private ended = false;
  private midLine = false;
  private interrupt: () => void = () => {};
  private readonly onSigint = () => this.interrupt();

  constructor(private readonly streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream }) {
    this.reader = createInterface({ input: streams.input, terminal: false });
    this.reader.on('line', (line) => {
      const resolve = this.waiting.shift();
      if (resolve) resolve(line);
      else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      for (const resolve of this.waiting.splice(0)) resolve(null);
    });
    process.on('SIGINT', this.onSigint);
  }

  /** Over a pipe nothing is drawn in place: a line aside is a line. */
  printAside(line: string): void {
    this.print(line);
  }

  print(line: string): void {
    if (this.midLine) this.streams.output.write('\n');
    this.midLine = false;
    this.streams.output.write(`${line}\n`);
  }

  stream(text: string): void {
    if (text === '') return;
    this.streams.output.write(text);
    this.midLine = !text.endsWith('\n');
  }

  nextLine(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  setPrompt(prompt: string | null): void {
    if (prompt !== null && this.midLine) this.print('');
  }

  setDraft(text: string): void {
    if (text !== '') this.print(`Your input, to edit and send again: ${JSON.stringify(text)}`);
  }

  async pick<Value>(request: PickRequest<Value>): Promise<Value | null> {
    this.print(request.title);
    if (request.items.length === 0) {
      this.print(`  ${request.empty ?? 'Nothing to choose.'}`);
      return null;
    }
    for (const [index, item] of request.items.entries()) this.print(`  ${index + 1}) ${item.label}${item.detail ? `  ${item.detail}` : ''}`);
    this.print(`Choose 1-${request.items.length} (empty line to cancel):`);
    const answer = await this.nextLine();
    const choice = answer === null ? Number.NaN : Number.parseInt(answer.trim(), 10);
    if (!Number.isInteger(choice) || choice < 1 || choice > request.items.length) {
      this.print('Cancelled.');
      return null;
    }
    return request.items[choice - 1]!.value;
  }

  progress(label: string): Progress {
    if (this.midLine) this.print('');
    return lineProgress(label, this.streams.output);
  }

  onInterrupt(handler: () => void): void {
    this.interrupt = handler;
  }

  close(): void {
    process.off('SIGINT', this.onSigint);
    this.reader.close();
  }
}
