import type { ModelMessage } from 'ai';
import type { JsonValue, PartContent } from '../model/index.js';
import { streamModelStep } from './model-step.js';
import { toolContext, type RuntimeCore, type TurnState } from './runtime-core.js';
import type { TurnScope } from './runtime-events.js';
import { executeToolCall } from './tool-executor.js';
import type { RuntimeTool } from './tools/tool.js';

const SUBAGENT_SYSTEM = [
  'You are a sub-agent working for another agent. Do the task you are given with the tools, then answer with a short report of what you found or changed: it is all the other agent will see.',
  'Stay inside the workspace; do not ask questions, you cannot get answers.',
].join(' ');

/**
 * A nested agent loop for the `subagent` tool: same model, the parent's tools except `subagent`,
 * and the parent turn's capture context — so every file change it makes is a checkpoint of the
 * *parent* turn (same turn id and anchor) and rewinding that turn reverts it. Its conversation is
 * kept in memory and returned as the transcript (the runtime stores it in the tool message's
 * metadata); its events carry `subagent: { toolCallId }` and no message id.
 */
export async function runSubagent(
  core: RuntimeCore,
  state: TurnState,
  input: { parentToolCallId: string; prompt: string; description?: string },
): Promise<{ text: string; transcript: JsonValue }> {
  const scope: TurnScope = { sessionId: state.session.id, turnId: state.turnId, subagent: { toolCallId: input.parentToolCallId } };
  const tools = new Map([...core.tools].filter(([name]) => name !== 'subagent')) as ReadonlyMap<string, RuntimeTool<any>>;
  const messages: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: input.prompt }] }];
  let answer = '';
  for (let step = 1; step <= core.settings.maxSteps; step++) {
    const outcome = await streamModelStep({
      model: core.model,
      system: SUBAGENT_SYSTEM,
      messages,
      tools: [...tools.values()],
      signal: state.signal,
      maxRetries: core.settings.maxRetries,
      onDelta: async (delta) => core.events.emit('message-part', { ...scope, messageId: null, partIndex: delta.partIndex, type: delta.type, delta: delta.text }),
    });
    messages.push({ role: 'assistant', content: outcome.parts.map(toAssistantPart) });
    answer = outcome.parts.filter((part) => part.type === 'text').map((part) => part.text as string).join('');
    if (outcome.error) throw outcome.error;
    if (outcome.aborted) return { text: `Interrupted: the sub-agent was stopped. ${answer}`.trim(), transcript: messages as unknown as JsonValue };
    if (outcome.calls.length === 0) return { text: answer || '(the sub-agent gave no answer)', transcript: messages as unknown as JsonValue };
    for (const call of outcome.calls) {
      const checkpointIds: string[] = [];
      core.events.emit('tool-start', { ...scope, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, effect: tools.get(call.toolName)?.effect ?? 'none' });
      const result = await executeToolCall(call, toolContext(core, state, scope, call.toolCallId, checkpointIds), { tools, ledger: core.ledger, approveEffect: core.approveEffect, effectPolicy: core.effectPolicy });
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: result.output as never }] });
      core.events.emit('tool-end', { ...scope, toolCallId: call.toolCallId, toolName: call.toolName, output: result.output, checkpointIds, messageId: null });
    }
  }
  return { text: `The sub-agent stopped after ${core.settings.maxSteps} model calls. ${answer}`.trim(), transcript: messages as unknown as JsonValue };
}

function toAssistantPart(part: PartContent) {
  if (part.type === 'tool-call') return { type: 'tool-call' as const, toolCallId: String(part.toolCallId), toolName: String(part.toolName), input: part.input ?? {} };
  return { type: part.type === 'reasoning' ? ('reasoning' as const) : ('text' as const), text: String(part.text ?? '') };
}
