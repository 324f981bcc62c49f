import type { ToolExecutionOptions, ToolSet } from 'ai';
import { openCaptureContext, type CaptureContext } from '../checkpoint/index.js';
import type { Waypoint } from '../engine/index.js';
import { ConflictError } from '../model/index.js';
import { captureLocksFor } from './capture-lock.js';
import { captureToolCall, type ToolCallCapture } from './tool-call-capture.js';

export interface CheckpointToolsOptions {
  waypoint: Waypoint;
  /** The session whose running turn (`startTurn`) the tools' file changes belong to. */
  sessionId: string;
  /**
   * Told after every call what it recorded, before its result goes back to the loop: its
   * checkpoints, and the changes no capture could keep (`uncovered`), which undo cannot restore.
   * They are also marked on the turn (`EndedTurn.uncovered`).
   */
  onCapture?: (report: ToolCaptureReport) => void;
}

/** What one wrapped tool call recorded. */
export interface ToolCaptureReport extends ToolCallCapture {
  toolName: string;
  toolCallId: string;
  turnId: string;
  /** What the tool threw (its changes were recorded anyway), or null. */
  error: unknown;
}

/**
 * Wraps a Vercel AI SDK tool set (`tool({ inputSchema, execute })` from `ai`) so that every file
 * change its tools make is checkpointed in the session's running turn (see `startTurn`) and undone
 * with it, however a tool makes it: writes through `checkpointedFs()` are recorded as they happen;
 * anything else — `node:fs`, a process it spawns — is found by a scan of the workspace around the
 * call (`captureToolCall`). Calls of one step that the SDK runs in parallel take the session's
 * capture lock in turn, so each change is attributed to the call that made it (a call waits for
 * the one before it). A tool without `execute` is returned unchanged; input schemas, descriptions
 * and outputs are untouched, and a tool's error is rethrown after its partial changes were
 * recorded. A call while no turn runs is refused with `NO_RUNNING_TURN` (the tool does not run).
 * A streaming tool (`async *execute`, preliminary results) is read to its end inside the
 * capture and its results are passed on after it; another function returning an async iterable
 * gives its last result only.
 *
 * @example
 * const tools = checkpointTools({ writeNotes, build }, { waypoint, sessionId: session.id })
 * const turn = await startTurn({ waypoint, sessionId: session.id, input: 'Write the notes and build' })
 * const result = await generateText({ model, tools, prompt: 'Write the notes and build', stopWhen: stepCountIs(5) })
 * await turn.end({ messages: result.response.messages })
 * await runtime.rewind({ sessionId: session.id, messageId: turn.inputMessageId, scope: 'workspace' }) // undo its files
 */
export function checkpointTools<TOOLS extends ToolSet>(tools: TOOLS, options: CheckpointToolsOptions): TOOLS {
  const wrapped: Record<string, unknown> = {};
  const contexts = new TurnContexts(options);
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as ((input: unknown, callOptions: ToolExecutionOptions) => unknown) | undefined;
    if (typeof execute !== 'function') {
      wrapped[name] = tool;
      continue;
    }
    const run = async (input: unknown, callOptions: ToolExecutionOptions): Promise<{ value: unknown; streamed: unknown[] | null }> => {
      const context = await contexts.current();
      const { outcome, capture } = await captureLocksFor(options.waypoint).run(options.sessionId, () =>
        captureToolCall(
          context,
          async () => {
            const value = execute.call(tool, input, callOptions);
            if (!isAsyncIterable(value)) return { value: await value, streamed: null };
            const streamed: unknown[] = [];
            for await (const item of value) streamed.push(item);
            return { value: streamed.at(-1), streamed };
          },
          { toolName: name, toolCallId: callOptions.toolCallId },
        ),
      );
      options.onCapture?.({
        ...capture,
        toolName: name,
        toolCallId: callOptions.toolCallId,
        turnId: context.turnId!,
        error: outcome.ok ? null : outcome.error,
      });
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    };
    // The SDK tells a streaming tool by what execute returns before awaiting it: an async generator
    // stays one (its results passed on after the call), any other function returns the final value.
    wrapped[name] = {
      ...tool,
      execute: isAsyncGeneratorFunction(execute)
        ? async function* (input: unknown, callOptions: ToolExecutionOptions) {
            yield* (await run(input, callOptions)).streamed ?? [];
          }
        : async (input: unknown, callOptions: ToolExecutionOptions) => (await run(input, callOptions)).value,
    };
  }
  return wrapped as TOOLS;
}

/** The capture context of the session's running turn, opened once per turn. */
class TurnContexts {
  private cached: { turnId: string; context: Promise<CaptureContext> } | null = null;

  constructor(private readonly options: CheckpointToolsOptions) {}

  async current(): Promise<CaptureContext> {
    const { store, blobs } = this.options.waypoint;
    const sessionId = this.options.sessionId;
    const running = await store.listTurns(sessionId, { status: 'running' });
    if (running.length !== 1) {
      throw new ConflictError({
        code: running.length === 0 ? 'NO_RUNNING_TURN' : 'TURN_RUNNING',
        message:
          running.length === 0
            ? `No turn is running in session ${sessionId}, so this tool's file changes would belong to none: start one with startTurn({ waypoint, sessionId, input }) before the model loop, and end it after.`
            : `Session ${sessionId} has ${running.length} turns marked running (${running.map((turn) => turn.id).join(', ')}); end the stale one (or resume the session) so the tool's changes go to one turn.`,
        details: { sessionId, turnIds: running.map((turn) => turn.id) },
      });
    }
    const turnId = running[0]!.id;
    if (this.cached?.turnId !== turnId) {
      const context = openCaptureContext({ store, blobs, sessionId, turnId });
      this.cached = { turnId, context };
      context.catch(() => {
        if (this.cached?.context === context) this.cached = null;
      });
    }
    return this.cached!.context;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}

const AsyncGeneratorFunction = Object.getPrototypeOf(async function* () {}).constructor as unknown;

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn instanceof (AsyncGeneratorFunction as new () => object);
}
