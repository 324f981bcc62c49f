import { randomBytes } from 'node:crypto';
import type { Waypoint } from '../engine/index.js';
import { EffectsLedger } from '../history/index.js';
import { EventBus, InvalidArgumentError, type Checkpoint, type JsonValue } from '../model/index.js';
import { BackgroundTasks } from './background-tasks.js';
import { captureLocksFor } from './capture-lock.js';
import { openTurnState, toolContext, type ToolCore } from './runtime-core.js';
import type { RuntimeEvents } from './runtime-events.js';
import { executeToolCall } from './tool-executor.js';
import { bashTool, editTool, globTool, grepTool, readTool, writeTool } from './tools/index.js';
import type { AnyRuntimeTool, ToolOutput } from './tools/tool.js';

export interface ToolHostOptions {
  waypoint: Waypoint;
  /** Default: read, write, edit, bash, glob, grep (the runtime's tools but the subagent, which needs a model). */
  tools?: AnyRuntimeTool[];
  /** Foreground bash timeout (default 120 s). */
  bashTimeoutMs?: number;
  /** Characters of command output kept (default 30,000). */
  maxOutputChars?: number;
}

export interface HostedToolCall {
  sessionId: string;
  /** A running turn of the session: the call's file changes belong to it. */
  turnId: string;
  toolName: string;
  input: JsonValue;
  /** Default: a fresh id. Checkpoints carry it. */
  toolCallId?: string;
  signal?: AbortSignal;
}

/** What one hosted call returned: the output the model would see, and the checkpoints it recorded. */
export interface HostedToolResult {
  toolCallId: string;
  output: ToolOutput;
  checkpoints: Checkpoint[];
}

/**
 * Runs the runtime's own tools for a caller that has its own model loop elsewhere (an MCP client,
 * an agent's hook): each call runs exactly as inside a turn of the runtime — the same input
 * validation, the same capture (a tool write is a tool checkpoint, a shell command is covered by a
 * workspace scan, the store is read-only to it), the same capture lock per session, background
 * commands registered with the turn — and its result comes back with the checkpoints it made.
 * A bad call (unknown tool, invalid input, a refused path) is an `error-text` output, as the model
 * would see it; nothing is changed by it.
 *
 * @example
 * const host = new ToolHost({ waypoint });
 * const { output, checkpoints } = await host.call({ sessionId, turnId, toolName: 'bash', input: { command: 'npm test' } });
 */
export class ToolHost {
  readonly events = new EventBus<RuntimeEvents>();
  readonly tools: ReadonlyMap<string, AnyRuntimeTool>;
  private readonly core: ToolCore;
  private readonly ledger: EffectsLedger;

  constructor(options: ToolHostOptions) {
    const tools = options.tools ?? ([readTool, writeTool, editTool, bashTool, globTool, grepTool] as AnyRuntimeTool[]);
    const map = new Map<string, AnyRuntimeTool>();
    for (const tool of tools) {
      if (tool.runsTools)
        throw new InvalidArgumentError({ parameter: 'tools', value: tool.name, reason: 'a tool that runs other tools needs a model loop: use the runtime.' });
      if (map.has(tool.name)) throw new InvalidArgumentError({ parameter: 'tools', value: tool.name, reason: 'tool names must be unique.' });
      map.set(tool.name, tool);
    }
    this.tools = map;
    const { waypoint } = options;
    const locks = captureLocksFor(waypoint);
    const maxOutputChars = options.maxOutputChars ?? 30_000;
    this.ledger = new EffectsLedger(waypoint.store);
    this.core = {
      waypoint,
      events: this.events,
      locks,
      settings: { maxSteps: 1, bashTimeoutMs: options.bashTimeoutMs ?? 120_000, maxOutputChars, maxRetries: 0, streamFlushChars: 64 },
      // No turn of this host is "running" in the runtime's sense: a background result is delivered as a message right away.
      background: new BackgroundTasks({ store: waypoint.store, tasks: waypoint.tasks, events: this.events, locks, maxOutputChars, runningTurn: () => null }),
    };
  }

  /** Runs one call in the session's running turn `turnId`. */
  async call(request: HostedToolCall): Promise<HostedToolResult> {
    const session = await this.core.waypoint.store.getSession(request.sessionId);
    const toolCallId = request.toolCallId ?? `call_${randomBytes(8).toString('hex')}`;
    const state = openTurnState(this.core, session, request.turnId, request.signal ?? new AbortController().signal);
    const checkpointIds: string[] = [];
    const recorded: Checkpoint[] = [];
    const off = this.events.on('checkpoint-create', (event) => {
      if (event.turnId === request.turnId && event.checkpoint.toolCallId === toolCallId) recorded.push(event.checkpoint);
    });
    try {
      const context = toolContext(this.core, state, { sessionId: session.id, turnId: request.turnId }, toolCallId, checkpointIds);
      const result = await executeToolCall({ toolCallId, toolName: request.toolName, input: request.input, invalid: null }, context, {
        tools: this.tools,
        ledger: this.ledger,
      });
      return { toolCallId, output: result.output, checkpoints: recorded };
    } finally {
      off();
    }
  }

  /** Wait until every background command started so far has ended and its result was recorded. */
  settleBackground(): Promise<void> {
    return this.core.background.settled();
  }

  /** Kill the background commands still running (their results are discarded) and wait for them. */
  async close(): Promise<void> {
    this.core.background.killAll();
    await this.core.background.settled();
  }
}
