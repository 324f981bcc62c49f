import type { ModelMessage } from 'ai';
import { summarizeTurn, type TurnSummary, type UncoveredPath } from '../checkpoint/index.js';
import type { Waypoint } from '../engine/index.js';
import { pinTurnBoundary } from '../fork/index.js';
import { ConflictError, InvalidArgumentError, newId, type JsonObject, type JsonValue, type PartContent, type Turn } from '../model/index.js';

export interface StartTurnOptions {
  waypoint: Waypoint;
  sessionId: string;
  /** What the person asked: the turn's user message, the target a rewind or undo of this turn picks. */
  input: string;
  metadata?: JsonObject;
  /**
   * `task_notification`: the turn answers a notice the agent got (a background command ended), not
   * something the person typed, so it is no rewind target. Default `input`.
   */
  inputKind?: 'input' | 'task_notification';
}

export interface EndTurnOptions {
  /**
   * The loop's own messages, to keep the conversation in the session too: the AI SDK's
   * `result.response.messages` (assistant text, reasoning and tool calls; tool results). Parts of
   * other kinds are left out. Default: none (the session then holds the input only).
   */
  messages?: readonly ModelMessage[];
  /** Default `complete`. */
  status?: 'complete' | 'interrupted' | 'error';
}

/** How a turn of your own loop ended, as recorded. */
export interface EndedTurn {
  turn: Turn;
  /** Its file changes per file (`summarizeTurn`). */
  summary: TurnSummary;
  /** Changes no capture could keep (ignored paths, files too large …): undo cannot restore these. */
  uncovered: UncoveredPath[];
  partiallyProtected: boolean;
}

/** A turn of your own agent loop, recorded in a session (see {@link startTurn}). */
export interface TurnHandle {
  readonly sessionId: string;
  readonly turnId: string;
  /** The user message: rewind the session to it (`scope: 'workspace'`) to undo the turn's files. */
  readonly inputMessageId: string;
  /** Mark the turn ended (a complete turn's boundary is pinned, so stable forks can start there). */
  end(options?: EndTurnOptions): Promise<EndedTurn>;
}

/**
 * Starts a turn of an agent loop you run yourself (`generateText`, `streamText`, `ToolLoopAgent`):
 * appends the person's input to the session and marks a turn running, so the file changes of
 * tools wrapped by `checkpointTools` belong to it and can be undone with it. One turn runs per
 * session at a time: a running one is refused with `TURN_RUNNING`.
 *
 * @example
 * const turn = await startTurn({ waypoint, sessionId: session.id, input: 'Write the notes' })
 * const result = await generateText({ model, tools: checkpointTools(tools, { waypoint, sessionId: session.id }), prompt: 'Write the notes' })
 * const { summary } = await turn.end({ messages: result.response.messages })
 */
export async function startTurn(options: StartTurnOptions): Promise<TurnHandle> {
  const { waypoint, sessionId } = options;
  if (typeof options.input !== 'string' || options.input.trim() === '') {
    throw new InvalidArgumentError({ parameter: 'input', value: options.input, reason: 'give the request the turn answers; an empty input starts no turn.' });
  }
  const { store, history } = waypoint;
  const running = await store.listTurns(sessionId, { status: 'running' });
  if (running.length > 0) {
    throw new ConflictError({
      code: 'TURN_RUNNING',
      message: `Session ${sessionId} has a turn still running (${running.map((turn) => turn.id).join(', ')}); end it (turn.end()) before starting the next, or resume the session if its process crashed.`,
      details: { sessionId, turnIds: running.map((turn) => turn.id) },
    });
  }
  const turnId = newId('turn');
  const input = await history.append(sessionId, { role: 'user', kind: options.inputKind ?? 'input', parts: [{ type: 'text', text: options.input }], turnId });
  await store.createTurn({ id: turnId, sessionId, userMessageId: input.id, metadata: { loop: 'external', ...options.metadata } });
  let ended: Promise<EndedTurn> | null = null;
  return {
    sessionId,
    turnId,
    inputMessageId: input.id,
    end: (endOptions = {}) => (ended ??= endExternalTurn(waypoint, sessionId, turnId, endOptions)),
  };
}

/**
 * Ends a turn {@link startTurn} started, from a process that no longer holds its handle (a hook
 * handler runs as a new process for each event): what `turn.end(options)` does.
 */
export async function endExternalTurn(waypoint: Waypoint, sessionId: string, turnId: string, options: EndTurnOptions = {}): Promise<EndedTurn> {
  const { store, history, blobs } = waypoint;
  for (const message of options.messages ?? []) {
    const stored = storedMessage(message);
    if (stored) await history.append(sessionId, { ...stored, turnId });
  }
  const status = options.status ?? 'complete';
  if (status === 'complete') await pinTurnBoundary(store, turnId);
  const turn = await store.updateTurn(turnId, { status, endedAt: Date.now() });
  const uncovered = Array.isArray(turn.metadata.uncovered) ? (turn.metadata.uncovered as unknown as UncoveredPath[]) : [];
  return { turn, summary: await summarizeTurn(store, blobs, turnId), uncovered, partiallyProtected: turn.metadata.partiallyProtected === true };
}

/** An AI SDK response message as stored parts (the SDK's own part shapes), or null when nothing of it is kept. */
function storedMessage(message: ModelMessage): { role: 'assistant' | 'tool'; kind: 'reply' | 'tool_result'; parts: PartContent[] } | null {
  if (message.role === 'assistant') {
    const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    const parts: PartContent[] = [];
    for (const part of content) {
      if ((part.type === 'text' || part.type === 'reasoning') && part.text !== '') parts.push({ type: part.type, text: part.text });
      else if (part.type === 'tool-call')
        parts.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: (part.input ?? {}) as JsonValue });
    }
    return parts.length > 0 ? { role: 'assistant', kind: 'reply', parts } : null;
  }
  if (message.role === 'tool') {
    const parts: PartContent[] = [];
    for (const part of message.content) {
      if (part.type === 'tool-result')
        parts.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: part.output as unknown as JsonValue });
    }
    return parts.length > 0 ? { role: 'tool', kind: 'tool_result', parts } : null;
  }
  return null;
}
