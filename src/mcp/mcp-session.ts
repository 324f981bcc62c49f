import type { ModelMessage } from 'ai';
import type { Waypoint } from '../engine/index.js';
import type { JsonValue } from '../model/index.js';
import { repairDanglingToolCalls } from '../rewind/index.js';
import { startTurn, ToolHost, type EndedTurn, type HostedToolResult, type TurnHandle } from '../runtime/index.js';

export interface McpSessionOptions {
  waypoint: Waypoint;
  /** The workspace the tools work in (a new session's workdir). */
  workdir: string;
  /** Continue this session instead of starting one at the first call that changes something. */
  sessionId?: string;
  /** A new session's title (default "MCP: <client name>"). */
  title?: string;
  /** Foreground command timeout (default 120 s). */
  bashTimeoutMs?: number;
}

/** A turn being recorded: the person's words (or the call's description) and the tool calls made in it. */
interface OpenTurn {
  handle: TurnHandle;
  explicit: boolean;
  messages: ModelMessage[];
}

/**
 * The Waypoint session behind one MCP connection, and its turn semantics — an MCP client has no
 * notion of a turn, so the server gives it one of two:
 * - **explicit**: the client calls `begin_turn` with the person's request; every call until
 *   `end_turn` (or the next `begin_turn`, or the connection closing) belongs to that turn, and one
 *   undo takes all of them back;
 * - **implicit**: a call that may change files while no turn is open is a turn of its own, its input
 *   a one-line description of the call (`bash: npm test`), ended as soon as the call returns; such
 *   calls run one at a time. Reading calls open no turn.
 * The session is created at the first tool call (a client that only lists the tools leaves none).
 */
export class McpSession {
  readonly host: ToolHost;
  private sessionId: string | null;
  private created: Promise<string> | null = null;
  private open: OpenTurn | null = null;
  /** Serializes implicit turns, begin_turn and end_turn. */
  private queue: Promise<unknown> = Promise.resolve();
  private clientName = 'client';

  constructor(private readonly options: McpSessionOptions) {
    this.host = new ToolHost({ waypoint: options.waypoint, ...(options.bashTimeoutMs === undefined ? {} : { bashTimeoutMs: options.bashTimeoutMs }) });
    this.sessionId = options.sessionId ?? null;
  }

  get waypoint(): Waypoint {
    return this.options.waypoint;
  }

  /** The session id if one exists yet. */
  get currentId(): string | null {
    return this.sessionId;
  }

  setClientName(name: string | undefined): void {
    if (name) this.clientName = name;
  }

  /** The session, created now when none exists. A resumed session's turns left running by a killed server are closed as interrupted first. */
  async id(): Promise<string> {
    if (this.sessionId !== null && this.created === null) {
      const existing = this.sessionId;
      this.created = repairDanglingToolCalls(this.waypoint.store, existing).then(() => existing);
    }
    this.created ??= this.waypoint.history
      .createSession({
        workdir: this.options.workdir,
        title: this.options.title ?? `MCP: ${this.clientName}`,
        metadata: { surface: 'mcp', client: this.clientName },
      })
      .then((session) => (this.sessionId = session.id));
    return this.created;
  }

  /** Opens an explicit turn for `input`, ending the one still open. */
  beginTurn(input: string): Promise<{ sessionId: string; turnId: string; inputMessageId: string; ended: EndedTurn | null }> {
    return this.serialized(async () => {
      const ended = await this.endOpen();
      const handle = await startTurn({ waypoint: this.waypoint, sessionId: await this.id(), input, metadata: { surface: 'mcp' } });
      this.open = { handle, explicit: true, messages: [] };
      return { sessionId: handle.sessionId, turnId: handle.turnId, inputMessageId: handle.inputMessageId, ended };
    });
  }

  /** Ends the explicit turn, with the assistant's closing words if given. Null when none was open. */
  endTurn(reply?: string): Promise<EndedTurn | null> {
    return this.serialized(async () => {
      if (reply && this.open) this.open.messages.push({ role: 'assistant', content: [{ type: 'text', text: reply }] });
      return this.endOpen();
    });
  }

  /**
   * Runs a runtime tool in the open turn, or in an implicit turn of its own described by `describe`
   * when the tool may change files and none is open. Reading tools run outside any turn.
   */
  async call(toolName: string, input: JsonValue, describe: string, changesFiles: boolean): Promise<HostedToolResult & { turnId: string | null }> {
    if (!changesFiles) {
      const sessionId = await this.id();
      const result = await this.host.call({ sessionId, turnId: this.open?.handle.turnId ?? 'turn_none', toolName, input });
      return { ...result, turnId: null };
    }
    const open = this.open;
    if (open?.explicit) return this.record(open, toolName, input);
    return this.serialized(async () => {
      if (this.open?.explicit) return this.record(this.open, toolName, input);
      const handle = await startTurn({ waypoint: this.waypoint, sessionId: await this.id(), input: describe, metadata: { surface: 'mcp', implicit: true } });
      const turn: OpenTurn = { handle, explicit: false, messages: [] };
      this.open = turn;
      try {
        return await this.record(turn, toolName, input);
      } finally {
        await this.endOpen();
      }
    });
  }

  /** Ends an open turn and kills background commands (their results are discarded). */
  async close(): Promise<void> {
    await this.serialized(() => this.endOpen());
    await this.host.close();
  }

  private async record(turn: OpenTurn, toolName: string, input: JsonValue): Promise<HostedToolResult & { turnId: string }> {
    const { handle } = turn;
    const result = await this.host.call({ sessionId: handle.sessionId, turnId: handle.turnId, toolName, input });
    turn.messages.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: result.toolCallId, toolName, input }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: result.toolCallId, toolName, output: result.output }] },
    );
    return { ...result, turnId: handle.turnId };
  }

  private async endOpen(): Promise<EndedTurn | null> {
    const turn = this.open;
    if (!turn) return null;
    this.open = null;
    return turn.handle.end({ messages: turn.messages });
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }
}
