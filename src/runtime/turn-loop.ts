import { summarizeTurn, type TurnSummary } from '../checkpoint/index.js';
import { pinTurnBoundary } from '../fork/index.js';
import { ConflictError, WaypointError, newId, type JsonObject, type MessageWithParts, type PartContent, type Turn, type TurnStatus } from '../model/index.js';
import { recordSavePoint, repairDanglingToolCalls } from '../rewind/index.js';
import { withFileRewindNote } from './file-rewind-note.js';
import { toModelMessages } from './model-messages.js';
import { streamModelStep, type ProposedCall } from './model-step.js';
import { openTurnState, toolContext, type RuntimeCore, type TurnState } from './runtime-core.js';
import type { TurnScope } from './runtime-events.js';
import { StreamingWriter } from './streaming-writer.js';
import { runSubagent } from './subagent-loop.js';
import { executeToolCall } from './tool-executor.js';
import type { ToolOutput } from './tools/tool.js';

/** How a turn ended. */
export interface TurnResult {
  turn: Turn;
  status: TurnStatus;
  /** The text of the final assistant message ('' when there was none). */
  text: string;
  finalMessageId: string | null;
  summary: TurnSummary;
  /** Model calls made. */
  steps: number;
}

/**
 * One turn: the input is appended and the turn created; then model → proposed tool calls (save
 * point A) → each call run through the checkpoint layer / effects ledger, its result appended →
 * save point B → model … until a reply without tool calls. A complete turn's boundary is pinned
 * and its status set **before** `turn-end` is emitted. An abort finishes the streaming message as
 * interrupted, gives every call without a result an "interrupted" result, and marks the turn
 * interrupted — the history stays valid model input. A provider failure marks the turn `error`,
 * emits `turn-end`, and is thrown as its typed error.
 */
export async function runTurnLoop(core: RuntimeCore, sessionId: string, text: string, signal: AbortSignal): Promise<TurnResult> {
  const { store, history } = core.waypoint;
  const session = await store.getSession(sessionId);
  const stuck = await store.listTurns(sessionId, { status: 'running' });
  if (stuck.length > 0) {
    throw new ConflictError({
      code: 'TURN_RUNNING',
      message: `Session ${sessionId} has a turn still marked running (${stuck.map((turn) => turn.id).join(', ')}): another process is running it, or it crashed. Resume the session to repair a crashed turn, then try again.`,
      details: { sessionId, turnIds: stuck.map((turn) => turn.id) },
    });
  }
  const turnId = newId('turn');
  const input = await history.append(sessionId, { role: 'user', kind: 'input', parts: [{ type: 'text', text }], turnId });
  const turn = await store.createTurn({ id: turnId, sessionId, userMessageId: input.id, metadata: { model: `${core.model.provider}:${core.model.modelId}` } });
  const scope: TurnScope = { sessionId, turnId };
  core.events.emit('turn-start', { ...scope, turn, input });
  const state = openTurnState(core, session, turnId, signal);
  let status: TurnStatus = 'complete';
  let failure: WaypointError | null = null;
  let final: MessageWithParts | null = null;
  let steps = 0;
  try {
    for (;;) {
      if (steps >= core.settings.maxSteps) {
        final = await appendReply(
          core,
          scope,
          [{ type: 'text', text: `Stopped after ${core.settings.maxSteps} model calls, the turn's limit. Ask me to continue if there is more to do.` }],
          { stepLimit: true },
        );
        break;
      }
      steps++;
      await core.background.flush(sessionId, turnId);
      // Files rewound under the conversation (by anyone, in any process) are named to the model first.
      const messages = toModelMessages(await withFileRewindNote(store, scope, await store.history(sessionId)));
      const { message: streaming } = await store.appendMessage({ sessionId, role: 'assistant', kind: 'reply', status: 'streaming', parts: [], turnId });
      const writer = new StreamingWriter(core, store, scope, streaming.id);
      const outcome = await streamModelStep({
        model: core.model,
        system: core.system,
        messages,
        tools: [...core.tools.values()],
        signal,
        maxRetries: core.settings.maxRetries,
        onDelta: writer.onDelta,
      });
      final = await writer.finish(outcome.aborted ? 'interrupted' : outcome.error ? 'error' : 'complete', outcome.parts);
      core.events.emit('message-finish', { ...scope, message: final });
      if (outcome.aborted || outcome.error) {
        status = outcome.aborted ? 'interrupted' : 'error';
        failure = outcome.error;
        await closeCalls(
          core,
          scope,
          outcome.calls,
          outcome.aborted ? 'Interrupted: the turn was stopped before this tool call ran.' : 'Not run: the model call failed.',
        );
        break;
      }
      if (outcome.calls.length === 0) break;
      await savePoint(core, scope, 'A', steps, final.id);
      const last = await runCalls(core, state, scope, outcome.calls);
      await savePoint(core, scope, 'B', steps, last);
      if (signal.aborted) {
        status = 'interrupted';
        break;
      }
    }
  } catch (thrown) {
    // Something outside the model and the tools failed (the store …): leave a valid history behind.
    status = 'error';
    failure =
      thrown instanceof WaypointError
        ? thrown
        : new WaypointError({ code: 'TURN_FAILED', message: `The turn failed: ${(thrown as Error)?.message ?? String(thrown)}`, cause: thrown });
    await repairDanglingToolCalls(store, sessionId).catch(() => undefined);
  }
  if (status === 'complete') await pinTurnBoundary(store, turnId);
  const ended = await store.updateTurn(turnId, {
    status,
    endedAt: Date.now(),
    ...(failure ? { metadata: { error: { code: failure.code, message: failure.message } } } : {}),
  });
  const summary = await summarizeTurn(store, core.waypoint.blobs, turnId);
  core.events.emit('turn-end', {
    ...scope,
    turn: ended,
    status,
    finalMessageId: final?.id ?? null,
    summary,
    error: failure ? { code: failure.code, message: failure.message } : null,
  });
  await core.background.flush(sessionId, null);
  if (failure) throw failure;
  return { turn: ended, status, text: textOf(final), finalMessageId: final?.id ?? null, summary, steps };
}

/** Run a round of proposed calls in order; returns the id of the last tool message. */
async function runCalls(core: RuntimeCore, state: TurnState, scope: TurnScope, calls: ProposedCall[]): Promise<string> {
  let lastId = '';
  for (const call of calls) {
    const checkpointIds: string[] = [];
    let output: ToolOutput;
    let metadata: JsonObject | undefined;
    if (state.signal.aborted) {
      output = { type: 'error-text', value: 'Interrupted: the turn was stopped before this tool call ran.' };
    } else {
      const tool = core.tools.get(call.toolName);
      core.events.emit('tool-start', { ...scope, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, effect: tool?.effect ?? 'none' });
      const context = toolContext(core, state, scope, call.toolCallId, checkpointIds, (prompt, options) =>
        runSubagent(core, state, { parentToolCallId: call.toolCallId, prompt, ...options }),
      );
      const result = await executeToolCall(call, context, {
        tools: core.tools,
        ledger: core.ledger,
        approveEffect: core.approveEffect,
        effectPolicy: core.effectPolicy,
      });
      output = result.output;
      metadata = result.metadata;
    }
    const { message } = await core.waypoint.store.appendMessage({
      sessionId: scope.sessionId,
      role: 'tool',
      kind: 'tool_result',
      turnId: scope.turnId,
      parts: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output }],
      ...(metadata ? { metadata } : {}),
    });
    lastId = message.id;
    core.events.emit('tool-end', { ...scope, toolCallId: call.toolCallId, toolName: call.toolName, output, checkpointIds, messageId: message.id });
  }
  return lastId;
}

/** Results for calls that will not run (abort, model failure), so every call has one. */
async function closeCalls(core: RuntimeCore, scope: TurnScope, calls: ProposedCall[], reason: string): Promise<void> {
  if (calls.length === 0) return;
  await core.waypoint.store.appendMessage({
    sessionId: scope.sessionId,
    role: 'tool',
    kind: 'tool_result',
    turnId: scope.turnId,
    parts: calls.map((call) => ({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: reason } })),
    metadata: { synthetic: 'not-run' },
  });
}

async function savePoint(core: RuntimeCore, scope: TurnScope, point: 'A' | 'B', step: number, messageId: string): Promise<void> {
  await recordSavePoint(core.waypoint.store, { sessionId: scope.sessionId, turnId: scope.turnId, point, step, messageId });
  core.events.emit('save-point', { ...scope, point, step, messageId });
}

async function appendReply(core: RuntimeCore, scope: TurnScope, parts: PartContent[], metadata: JsonObject): Promise<MessageWithParts> {
  const { message } = await core.waypoint.store.appendMessage({
    sessionId: scope.sessionId,
    role: 'assistant',
    kind: 'reply',
    turnId: scope.turnId,
    parts,
    metadata,
  });
  core.events.emit('message-finish', { ...scope, message });
  return message;
}

function textOf(message: MessageWithParts | null): string {
  if (!message) return '';
  return message.parts
    .map((part) => part.content)
    .filter((content) => content?.type === 'text')
    .map((content) => content!.text as string)
    .join('');
}
