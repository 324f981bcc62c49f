import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const HOST = join(ROOT, 'test', 'cli', 'pty-host.py');
const BIN = join(ROOT, 'bin', 'waypoint.js');

export const KEYS = {
  up: '\x1b[A',
  down: '\x1b[B',
  left: '\x1b[D',
  right: '\x1b[C',
  enter: '\r',
  escape: '\x1b',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlU: '\x15',
  backspace: '\x7f',
} as const;

/** Removes terminal escape sequences, keeping the text a person reads. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[DM78]/g, '').replace(/\r/g, '');
}

/**
 * The built `waypoint` CLI in a real pseudo-terminal (python3's pty module: no native addon, on
 * every machine that has python3). Type with `type`/`press`, wait for what the screen shows with
 * `waitFor` (matched on the output since the last `mark`, escape sequences removed).
 */
export class PtySession {
  private output = '';
  private markAt = 0;
  private exited: Promise<number>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(args: string[], options: { home: string; cwd: string; env?: Record<string, string> }) {
    this.child = spawn('python3', [HOST, process.execPath, BIN, ...args], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.home,
        WAYPOINT_HOME: options.home,
        TERM: 'xterm-256color',
        PTY_COLS: '120',
        PTY_ROWS: '40',
        ...options.env,
      },
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => (this.output += chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.output += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code ?? -1)));
  }

  /** Everything shown so far, escape sequences removed. */
  get screen(): string {
    return plain(this.output);
  }

  /** Everything the program wrote to the terminal, escape sequences included. */
  get raw(): string {
    return this.output;
  }

  /** Output since the last mark, escape sequences removed. */
  get recent(): string {
    return plain(this.output.slice(this.markAt));
  }

  /** Later `waitFor` calls only look at output after this point. */
  mark(): void {
    this.markAt = this.output.length;
  }

  type(text: string): void {
    this.child.stdin.write(text);
  }

  /** Types a line and presses Enter. */
  line(text: string): void {
    this.child.stdin.write(`${text}\r`);
  }

  press(...keys: Array<keyof typeof KEYS>): void {
    for (const key of keys) this.child.stdin.write(KEYS[key]);
  }

  async waitFor(pattern: string | RegExp, timeoutMs = 45_000): Promise<string> {
    const started = Date.now();
    for (;;) {
      const recent = this.recent;
      if (typeof pattern === 'string' ? recent.includes(pattern) : pattern.test(recent)) return recent;
      if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${String(pattern)}; the screen since the mark:\n${recent}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Presses keys one at a time, waiting a little between them (an Esc must not merge with the next key). */
  async keys(...keys: Array<keyof typeof KEYS>): Promise<void> {
    for (const key of keys) {
      this.press(key);
      await new Promise((resolve) => setTimeout(resolve, key === 'escape' ? 150 : 60));
    }
  }

  exit(): Promise<number> {
    return this.exited;
  }

  kill(): void {
    this.child.kill('SIGTERM');
  }
}
