import type { Waypoint } from '../../engine/index.js';
import { WaypointError, type Session } from '../../model/index.js';
import type { AgentRuntime, TurnResult } from '../../runtime/index.js';
import type { ChatContext, RedoAction, SlashCommand } from './chat-context.js';
import type { ChatIO } from './chat-io.js';
import { attachEventView } from './event-view.js';
import { findSlashCommand, parseSlash } from './slash-commands.js';

export const PROMPT = '› ';

export interface ChatControllerOptions {
  io: ChatIO;
  runtime: AgentRuntime;
  waypoint: Waypoint;
  session: Session;
}

/**
 * The interactive chat: reads lines, sends plain text to the agent as a turn, runs slash commands,
 * and keeps the prompt honest about what is running. On a terminal a turn runs in the background so
 * typing goes on (a message typed meanwhile is queued; `/rewind` and the other commands that need the
 * session idle are refused); over a pipe each line waits for the turn before it.
 */
export class ChatController implements ChatContext {
  readonly io: ChatIO;
  readonly runtime: AgentRuntime;
  readonly waypoint: Waypoint;
  readonly redoStack: RedoAction[] = [];
  private current: Session;
  private running: Promise<void> | null = null;
  private readonly queued: string[] = [];
  private capture: { prompt: string; handler: (line: string) => Promise<void> } | null = null;
  private lastInterrupt = 0;
  private exitRequested = false;
  private wake: (() => void) | null = null;
  private typed: Promise<string | null> | null = null;
  private readonly reportedTurnErrors = new Set<string>();

  constructor(options: ChatControllerOptions) {
    this.io = options.io;
    this.runtime = options.runtime;
    this.waypoint = options.waypoint;
    this.current = options.session;
  }

  get sessionId(): string {
    return this.current.id;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  async session(): Promise<Session> {
    this.current = await this.waypoint.store.getSession(this.current.id);
    return this.current;
  }

  switchTo(session: Session, note: string): void {
    this.current = session;
    this.redoStack.length = 0;
    this.io.print(this.io.style.accent(note));
  }

  captureNextLine(prompt: string, handler: (line: string) => Promise<void>): void {
    this.capture = { prompt, handler };
    this.io.setPrompt(prompt);
  }

  async launch(label: string, run: () => Promise<TurnResult | void>): Promise<void> {
    if (this.running) throw new Error(`a turn is already running (${label})`);
    this.io.setPrompt(null);
    const turn = (async () => {
      try {
        await run();
      } catch (error) {
        // A failed turn was already shown by its turn-end line; anything else is reported here.
        if (!(WaypointError.is(error) && this.reportedTurnErrors.has(error.message))) this.report(error);
      } finally {
        this.reportedTurnErrors.clear();
        this.running = null;
        this.io.setPrompt(this.promptText());
        this.wake?.();
      }
    })();
    this.running = turn;
    if (!this.io.interactive) await turn;
  }

  /** Runs until /exit, Ctrl-D or the end of the input; resolves with the exit code. */
  async run(): Promise<number> {
    const detachView = attachEventView(this.runtime, this.io);
    const detachErrors = this.runtime.events.on('turn-end', (event) => {
      if (event.error && !event.subagent) this.reportedTurnErrors.add(event.error.message);
    });
    const detach = () => {
      detachView();
      detachErrors();
    };
    this.io.onInterrupt(() => this.onInterrupt());
    this.io.setPrompt(this.promptText());
    try {
      for (;;) {
        const next = await this.nextInput();
        if (next === null || this.exitRequested) break;
        const done = await this.handle(next);
        if (done === 'exit') break;
      }
      if (this.running && !this.exitRequested) await this.running;
      else if (this.running) await this.runtime.interrupt(this.sessionId);
      await this.running;
      return 0;
    } finally {
      detach();
      this.io.close();
    }
  }

  /** The next line: queued input once the turn ended, else what is typed. */
  private async nextInput(): Promise<string | null> {
    for (;;) {
      if (!this.running && this.queued.length > 0) {
        const line = this.queued.shift()!;
        this.io.print(this.io.style.dim(`› ${line}`));
        return line;
      }
      this.typed ??= this.io.nextLine();
      if (this.queued.length === 0) {
        const line = await this.typed;
        this.typed = null;
        return line;
      }
      // A queued message waits for the running turn to end or for a typed line, whichever comes first.
      const woke = new Promise<null>((resolve) => (this.wake = () => resolve(null)));
      const first = await Promise.race([this.typed.then((line) => ({ line })), woke]);
      this.wake = null;
      if (first) {
        this.typed = null;
        return first.line;
      }
    }
  }

  private async handle(line: string): Promise<void | 'exit'> {
    const capture = this.capture;
    if (capture) {
      this.capture = null;
      this.io.setPrompt(this.promptText());
      if (!line.trim().startsWith('/')) return this.guard(() => capture.handler(line));
      this.io.print(this.io.style.dim('(edit cancelled)'));
    }
    const text = line.trim();
    if (text === '') return;
    if (text.startsWith('/')) return this.slash(text);
    if (this.running) {
      this.queued.push(text);
      this.io.print(this.io.style.dim('(queued: sent when the current turn ends; Ctrl-C stops the turn)'));
      return;
    }
    const sessionId = this.sessionId;
    await this.launch('turn', () => this.runtime.runTurn(sessionId, text));
  }

  private async slash(text: string): Promise<void | 'exit'> {
    const { name, args } = parseSlash(text);
    const command: SlashCommand | undefined = findSlashCommand(name);
    if (!command) {
      this.io.print(this.io.style.warn(`Unknown command /${name}. Type /help for the list.`));
      return;
    }
    if (this.running && !command.whileBusy) {
      this.io.print(this.io.style.warn(`/${command.name} is ignored while the agent is working; wait for the turn to end or press Ctrl-C to stop it.`));
      return;
    }
    const outcome = { exit: false };
    // The prompt comes back when the command is done (or at once, when it launched a turn it stays hidden).
    if (!this.running) this.io.setPrompt(null);
    await this.guard(async () => {
      outcome.exit = (await command.run(this, args)) === 'exit';
    });
    if (!this.running && !this.capture) this.io.setPrompt(this.promptText());
    if (!outcome.exit) return;
    this.exitRequested = true;
    return 'exit';
  }

  private async guard(body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    if (WaypointError.is(error)) this.io.print(this.io.style.error(`${error.message} [${error.code}]`));
    else this.io.print(this.io.style.error(`Unexpected failure: ${error instanceof Error ? error.message : String(error)}`));
  }

  private onInterrupt(): void {
    if (this.running) {
      this.io.print(this.io.style.warn('Stopping the turn…'));
      void this.runtime.interrupt(this.sessionId);
      this.queued.length = 0;
      return;
    }
    const now = Date.now();
    if (now - this.lastInterrupt < 2000) {
      this.exitRequested = true;
      this.io.close();
      return;
    }
    this.lastInterrupt = now;
    this.io.setDraft('');
    this.io.print(this.io.style.dim('(Ctrl-C again to leave, or /exit)'));
  }

  private promptText(): string {
    return this.capture?.prompt ?? PROMPT;
  }
}
