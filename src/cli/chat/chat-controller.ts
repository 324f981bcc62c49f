import type { Waypoint } from '../../engine/index.js';
import { WaypointError, type Session } from '../../model/index.js';
import type { AgentRuntime, TurnResult } from '../../runtime/index.js';
import type { ChatContext, RedoAction, SlashCommand } from './chat-context.js';
import { asideIO, type ChatIO } from './chat-io.js';
import { attachEventView } from './event-view.js';
import { findSlashCommand, parseSlash } from './slash-commands.js';
import { clipStart, sessionTitle } from './session-title.js';

export const PROMPT = '› ';

export interface ChatControllerOptions {
  io: ChatIO;
  runtime: AgentRuntime;
  waypoint: Waypoint;
  /** The session to continue; null for a new one, stored by `startSession` at the first input. */
  session: Session | null;
  /** Stores the new session (`title`: from the first message; null when a command came first). */
  startSession?: (title: string | null) => Promise<Session>;
  /** The new session's title was chosen (`--title`): inputs do not name it. */
  titled?: boolean;
  /** The directory the chat started in: the prompt names the directory when the session works elsewhere. */
  startDir: string;
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
  private current: Session | null;
  private readonly startSession: ((title: string | null) => Promise<Session>) | null;
  /** The session the chat started in (or stored first): the prompt names any other. */
  private home: string | null;
  private readonly startDir: string;
  private readonly titled: boolean;
  /** A session stored by a command before any message, with this title: the first message names it. */
  private untitled: { sessionId: string; title: string } | null = null;
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
    this.startSession = options.startSession ?? null;
    this.home = options.session?.id ?? null;
    this.startDir = options.startDir;
    this.titled = options.titled ?? false;
  }

  get sessionId(): string {
    return this.current?.id ?? '';
  }

  /** True once the chat has a stored session (a new chat stores none until the first input). */
  get stored(): boolean {
    return this.current !== null;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  async session(): Promise<Session> {
    this.current = await this.waypoint.store.getSession((await this.ensureSession(null)).id);
    return this.current;
  }

  switchTo(session: Session, note: string): void {
    this.current = session;
    this.home ??= session.id;
    this.redoStack.length = 0;
    this.io.print(this.io.style.accent(note));
    const elsewhere = session.workdir !== null && session.workdir !== this.startDir;
    this.io.print(this.io.style.dim(`Working in ${session.workdir ?? '(no directory)'}${elsewhere ? ` (the chat started in ${this.startDir})` : ''}.`));
  }

  /**
   * The chat's session, stored now if it is not yet: named after `firstMessage` (its first line,
   * clipped), or, stored for a command, named by the first message that follows.
   */
  private async ensureSession(firstMessage: string | null): Promise<Session> {
    if (this.current === null) {
      if (!this.startSession) throw new Error('the chat has no session and no way to start one');
      this.current = await this.startSession(firstMessage === null ? null : sessionTitle(firstMessage));
      this.home = this.current.id;
      if (firstMessage === null && !this.titled) this.untitled = { sessionId: this.current.id, title: this.current.title };
      this.io.print(this.io.style.dim(`Session ${this.current.id} ${JSON.stringify(this.current.title)} stored; /title renames it.`));
    } else if (firstMessage !== null && this.untitled?.sessionId === this.current.id) {
      const { title } = this.untitled;
      this.untitled = null;
      const now = await this.waypoint.store.getSession(this.current.id);
      // Renamed with /title meanwhile: that name stays.
      if (now.title === title) this.current = await this.waypoint.store.setTitle(now.id, sessionTitle(firstMessage));
    }
    return this.current;
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
      this.io.printAside(this.io.style.dim('(queued: sent when the current turn ends; Ctrl-C stops the turn)'));
      return;
    }
    let sessionId: string;
    try {
      sessionId = (await this.ensureSession(text)).id;
    } catch (error) {
      return this.report(error);
    }
    await this.launch('turn', () => this.runtime.runTurn(sessionId, text));
  }

  private async slash(text: string): Promise<void | 'exit'> {
    const { name, args } = parseSlash(text);
    const command: SlashCommand | undefined = findSlashCommand(name);
    // Typed while a reply streams: the command and what it prints go above the reply, not into it.
    const io = this.running ? asideIO(this.io) : this.io;
    if (!command) {
      io.print(io.style.warn(`Unknown command /${name}. Type /help for the list.`));
      return;
    }
    if (this.running && !command.whileBusy) {
      io.print(io.style.warn(`/${command.name} is ignored while the agent is working; wait for the turn to end or press Ctrl-C to stop it.`));
      return;
    }
    const outcome = { exit: false };
    // The prompt comes back when the command is done (or at once, when it launched a turn it stays hidden).
    if (!this.running) this.io.setPrompt(null);
    const context = this.running ? this.asideContext(io) : this;
    await this.guard(async () => {
      if (!command.withoutSession) await this.ensureSession(null);
      outcome.exit = (await command.run(context, args)) === 'exit';
    }, io);
    if (!this.running && !this.capture) this.io.setPrompt(this.promptText());
    if (!outcome.exit) return;
    this.exitRequested = true;
    return 'exit';
  }

  /** This chat as a command run while a turn streams sees it: the same, printing aside. */
  private asideContext(io: ChatIO): ChatContext {
    const chat = this;
    return {
      io,
      runtime: this.runtime,
      waypoint: this.waypoint,
      redoStack: this.redoStack,
      get sessionId() {
        return chat.sessionId;
      },
      get busy() {
        return chat.busy;
      },
      session: () => this.session(),
      switchTo: (session, note) => this.switchTo(session, note),
      launch: (label, run) => this.launch(label, run),
      captureNextLine: (prompt, handler) => this.captureNextLine(prompt, handler),
    };
  }

  private async guard(body: () => Promise<void>, io: ChatIO = this.io): Promise<void> {
    try {
      await body();
    } catch (error) {
      this.report(error, io);
    }
  }

  private report(error: unknown, io: ChatIO = this.io): void {
    if (WaypointError.is(error)) io.print(io.style.error(`${error.message} [${error.code}]`));
    else io.print(io.style.error(`Unexpected failure: ${error instanceof Error ? error.message : String(error)}`));
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

  /** The prompt: `› `, led by the session (and its directory) once the chat moved away from where it started. */
  private promptText(): string {
    if (this.capture) return this.capture.prompt;
    const session = this.current;
    const elsewhere = session !== null && session.workdir !== null && session.workdir !== this.startDir;
    if (session === null || (session.id === this.home && !elsewhere)) return PROMPT;
    const dir = elsewhere ? ` · ${clipStart(session.workdir!, 40)}` : '';
    return `${this.io.style.dim(`[${session.kind === 'main' ? '' : `${session.kind} `}…${session.id.slice(-6)}${dir}]`)} ${PROMPT}`;
  }
}
