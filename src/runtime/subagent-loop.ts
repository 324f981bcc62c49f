import { MODEL_CHOICE_ENTRY } from '../fork/index.js';
import { SUBAGENT_METADATA, type SubagentLink } from '../history/index.js';
import { newId, type JsonObject, type JsonValue, type PartContent, type TurnStatus } from '../model/index.js';
import { toModelMessages } from './model-messages.js';
import { streamModelStep, type ProposedCall } from './model-step.js';
import { toolContext, type RuntimeCore, type TurnState } from './runtime-core.js';
import type { TurnScope } from './runtime-events.js';
import { StreamingWriter } from './streaming-writer.js';
import { executeToolCall } from './tool-executor.js';
import type { AnyRuntimeTool, SubagentRun } from './tools/tool.js';

const SUBAGENT_SYSTEM = [
  'You are a sub-agent working for another agent. Do the task you are given with the tools, then answer with a short report of what you found or changed: it is all the other agent will see.',
  'Stay inside the workspace; do not ask questions, you cannot get answers.',
].join(' ');

// The link's key and shape live in history, so layers below the runtime can recognise a
// subagent session; re-exported here for the runtime's callers.
export { SUBAGENT_METADATA, subagentLink, type SubagentLink } from '../history/index.js';

/**
 * A nested agent loop for the `subagent` tool: same model, the parent's tools except `subagent`.
 *
 * Files: it runs with the parent turn's capture context, so every file change it makes is a
 * checkpoint of the *parent* turn (same session, turn id and anchor) and rewinding that turn
 * reverts it.
 *
 * Transcript: written as it happens to a child session of the parent (`kind: 'fork'`, starting
 * empty in the parent's tree, `metadata.subagent` = {@link SubagentLink}), one turn whose input is
 * the prompt — the same streaming/append path as a parent turn, so a person can read it later
 * (`store.history(childSessionId)`) and a crash leaves what was done. The parent's conversation is
 * unchanged: the model still sees one tool result, the subagent's answer; the tool message's
 * metadata names the child session. The child is not on the parent's path, so none of its messages
 * is a rewind target of the parent; it has no checkpoints of its own (they are the parent's).
 * Its events carry `subagent: { toolCallId, sessionId: <child> }` and the child's message ids.
 */
export async function runSubagent(
  core: RuntimeCore,
  state: TurnState,
  input: { parentToolCallId: string; prompt: string; description?: string },
): Promise<SubagentRun> {
  const { store } = core.waypoint;
  const parent = state.session;
  const link: SubagentLink = {
    parentSessionId: parent.id,
    parentTurnId: state.turnId,
    toolCallId: input.parentToolCallId,
    description: input.description ?? null,
  };
  const [modelChoice] = await store.listEntries(parent.id, { type: MODEL_CHOICE_ENTRY, last: 1 });
  const childTurnId = newId('turn');
  const { session: child } = await store.forkSession({
    parentSessionId: parent.id,
    at: null,
    kind: 'fork',
    title: `Subagent: ${oneLine(input.description ?? input.prompt, 60)}`,
    metadata: { [SUBAGENT_METADATA]: link as unknown as JsonValue },
    entries: modelChoice ? [{ type: MODEL_CHOICE_ENTRY, data: modelChoice.data }] : [],
    messages: [{ role: 'user', kind: 'input', parts: [{ type: 'text', text: input.prompt }], turnId: childTurnId }],
  });
  const promptId = child.headMessageId!;
  await store.createTurn({ id: childTurnId, sessionId: child.id, userMessageId: promptId, metadata: { [SUBAGENT_METADATA]: link as unknown as JsonValue } });
  const scope: TurnScope = { sessionId: parent.id, turnId: state.turnId, subagent: { toolCallId: input.parentToolCallId, sessionId: child.id } };
  const childScope = { sessionId: child.id, turnId: childTurnId };
  core.events.emit('subagent-start', {
    ...scope,
    toolCallId: input.parentToolCallId,
    childSessionId: child.id,
    prompt: input.prompt,
    description: input.description ?? null,
  });
  const tools = new Map([...core.tools].filter(([name]) => name !== 'subagent')) as ReadonlyMap<string, AnyRuntimeTool>;
  let messages = 1;
  let answer = '';
  let status: SubagentRun['status'] = 'step-limit';
  let failure: unknown = null;
  try {
    for (let step = 1; step <= core.settings.maxSteps; step++) {
      const { message: streaming } = await store.appendMessage({ ...childScope, role: 'assistant', kind: 'reply', status: 'streaming', parts: [] });
      messages++;
      const writer = new StreamingWriter(core, store, scope, streaming.id);
      const outcome = await streamModelStep({
        model: core.model,
        system: SUBAGENT_SYSTEM,
        messages: toModelMessages(await store.history(child.id)),
        tools: [...tools.values()],
        signal: state.signal,
        maxRetries: core.settings.maxRetries,
        onDelta: writer.onDelta,
      });
      const final = await writer.finish(outcome.aborted ? 'interrupted' : outcome.error ? 'error' : 'complete', outcome.parts);
      core.events.emit('message-finish', { ...scope, message: final });
      answer = outcome.parts
        .filter((part) => part.type === 'text')
        .map((part) => part.text as string)
        .join('');
      if (outcome.error || outcome.aborted) {
        status = outcome.aborted ? 'interrupted' : 'error';
        failure = outcome.error;
        if (
          await closeCalls(
            store,
            childScope,
            outcome.calls,
            outcome.aborted ? 'Interrupted: the sub-agent was stopped before this tool call ran.' : 'Not run: the model call failed.',
          )
        )
          messages++;
        break;
      }
      if (outcome.calls.length === 0) {
        status = 'complete';
        break;
      }
      for (const call of outcome.calls) {
        const checkpointIds: string[] = [];
        core.events.emit('tool-start', {
          ...scope,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.input,
          effect: tools.get(call.toolName)?.effect ?? 'none',
        });
        const result = state.signal.aborted
          ? { output: { type: 'error-text' as const, value: 'Interrupted: the sub-agent was stopped before this tool call ran.' } }
          : await executeToolCall(call, toolContext(core, state, scope, call.toolCallId, checkpointIds), {
              tools,
              ledger: core.ledger,
              approveEffect: core.approveEffect,
              effectPolicy: core.effectPolicy,
            });
        const { message } = await store.appendMessage({
          ...childScope,
          role: 'tool',
          kind: 'tool_result',
          parts: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: result.output }],
          ...('metadata' in result && result.metadata ? { metadata: result.metadata } : {}),
        });
        messages++;
        core.events.emit('tool-end', {
          ...scope,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: result.output,
          checkpointIds,
          messageId: message.id,
        });
      }
      if (state.signal.aborted) {
        status = 'interrupted';
        break;
      }
    }
  } catch (thrown) {
    status = 'error';
    failure = thrown;
  }
  const turnStatus: TurnStatus = status === 'step-limit' ? 'complete' : status;
  const metadata: JsonObject = status === 'step-limit' ? { stepLimit: true } : {};
  await store.updateTurn(childTurnId, { status: turnStatus, endedAt: Date.now(), metadata }).catch(() => undefined);
  const text =
    status === 'complete'
      ? answer || '(the sub-agent gave no answer)'
      : status === 'interrupted'
        ? `Interrupted: the sub-agent was stopped. ${answer}`.trim()
        : status === 'step-limit'
          ? `The sub-agent stopped after ${core.settings.maxSteps} model calls. ${answer}`.trim()
          : answer;
  core.events.emit('subagent-end', { ...scope, toolCallId: input.parentToolCallId, childSessionId: child.id, status, text });
  if (failure) throw failure;
  return { text, sessionId: child.id, status, messages };
}

/** Results for calls that will not run, so the transcript stays valid model input. */
async function closeCalls(
  store: RuntimeCore['waypoint']['store'],
  scope: { sessionId: string; turnId: string },
  calls: ProposedCall[],
  reason: string,
): Promise<boolean> {
  if (calls.length === 0) return false;
  await store.appendMessage({
    ...scope,
    role: 'tool',
    kind: 'tool_result',
    parts: calls.map(
      (call): PartContent => ({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: reason } }),
    ),
    metadata: { synthetic: 'not-run' },
  });
  return true;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
