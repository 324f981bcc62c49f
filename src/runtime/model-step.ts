import { jsonSchema, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import type { JsonValue, PartContent, WaypointError } from '../model/index.js';
import type { LanguageModelV3 } from './models/language-model-v3.js';
import { toModelError } from './models/model-call-error.js';
import type { AnyRuntimeTool } from './tools/tool.js';

/** A tool call the model proposed in one step. */
export interface ProposedCall {
  toolCallId: string;
  toolName: string;
  input: JsonValue;
  /** Why the SDK could not parse the call (its input is then the raw text), or null. */
  invalid: string | null;
}

export interface StepOutcome {
  /** The assistant message's parts in order: reasoning, text, tool-call (AI SDK shapes). */
  parts: PartContent[];
  calls: ProposedCall[];
  /** The provider failed (typed), or null. */
  error: WaypointError | null;
  aborted: boolean;
}

export interface StepOptions {
  model: LanguageModelV3;
  system: string;
  messages: ModelMessage[];
  tools: readonly AnyRuntimeTool[];
  signal: AbortSignal;
  maxRetries: number;
  /** Called for every text/reasoning delta, in order, after it was added to `parts`; awaited (backpressure). */
  onDelta: (delta: { type: 'text' | 'reasoning'; text: string; partIndex: number; parts: PartContent[] }) => Promise<void>;
}

/** The SDK tool set: schemas only. Tools run in the runtime, one checkpointed call at a time. */
export function sdkTools(tools: readonly AnyRuntimeTool[]): ToolSet {
  return Object.fromEntries(
    tools.map((entry) => [
      entry.name,
      tool({ description: entry.description, inputSchema: jsonSchema(z.toJSONSchema(entry.inputSchema, { io: 'input' }) as never) }),
    ]),
  );
}

/**
 * One model call through the AI SDK's `streamText` (a single step: tools have no `execute`, so the
 * SDK stops at the proposed calls and the runtime runs them itself, checkpointed). Streams deltas
 * to `onDelta`; provider failures come back as typed errors, an abort as `aborted`.
 */
export async function streamModelStep(options: StepOptions): Promise<StepOutcome> {
  const parts: PartContent[] = [];
  const calls: ProposedCall[] = [];
  let error: WaypointError | null = null;
  const modelInfo = { provider: options.model.provider, modelId: options.model.modelId };
  const append = async (type: 'text' | 'reasoning', text: string) => {
    if (text === '') return;
    const last = parts.at(-1);
    if (last?.type === type) last.text = `${last.text as string}${text}`;
    else parts.push({ type, text });
    await options.onDelta({ type, text, partIndex: parts.length - 1, parts });
  };
  try {
    const result = streamText({
      model: options.model,
      system: options.system,
      messages: options.messages,
      tools: sdkTools(options.tools),
      abortSignal: options.signal,
      maxRetries: options.maxRetries,
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') await append('text', part.text);
      else if (part.type === 'reasoning-delta') await append('reasoning', part.text);
      else if (part.type === 'tool-call') {
        const invalid = 'invalid' in part && part.invalid ? String((part as { error?: unknown }).error ?? 'invalid input') : null;
        const input = (part.input ?? {}) as JsonValue;
        parts.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input });
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input, invalid });
      } else if (part.type === 'error') {
        error = toModelError(part.error, modelInfo);
      }
    }
  } catch (thrown) {
    if (!options.signal.aborted) error = toModelError(thrown, modelInfo);
  }
  return { parts, calls, error: options.signal.aborted ? null : error, aborted: options.signal.aborted };
}
