import { ModelError } from '../runtime-errors.js';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from './language-model-v3.js';
import { loadModelScript, parseModelScript, type ModelScript, type ScriptedStep } from './scripted-script.js';

type Content = LanguageModelV3GenerateResult['content'][number];

/**
 * A deterministic model for demos and tests: an AI SDK `LanguageModelV3` that plays a script of
 * steps in order, one per call, with no network. Text is streamed word by word, so the runtime's
 * streaming path is the same as with a real provider; tool calls are emitted as the SDK's
 * `tool-call` stream parts (JSON-encoded input), and `streamText` validates them against the tools.
 * Calling it more often than the script has steps raises `SCRIPT_EXHAUSTED`.
 *
 * @example
 * const model = ScriptedModel.fromSteps([{ toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'hi\n' } }] }, { text: 'Done.' }]);
 * const runtime = createRuntime({ waypoint, model });
 */
export class ScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** The prompt of every call, in order (what the model was shown). */
  readonly calls: LanguageModelV3CallOptions['prompt'][] = [];
  private cursor = 0;

  constructor(
    private readonly script: ModelScript,
    name = 'script',
  ) {
    this.modelId = name;
  }

  static fromFile(file: string): ScriptedModel {
    return new ScriptedModel(loadModelScript(file), file);
  }

  static fromSteps(steps: unknown, name = 'inline'): ScriptedModel {
    return new ScriptedModel(parseModelScript(Array.isArray(steps) ? { steps } : steps, name), name);
  }

  /** Steps not played yet. */
  get remaining(): number {
    return this.script.steps.length - this.cursor;
  }

  private next(options: LanguageModelV3CallOptions): { step: ScriptedStep; index: number } {
    const index = this.cursor;
    const step = this.script.steps[index];
    if (step === undefined) {
      throw new ModelError({
        code: 'SCRIPT_EXHAUSTED',
        message: `The scripted model ${this.modelId} has played all ${this.script.steps.length} of its steps and was called again; add steps to the script.`,
        details: { script: this.modelId, steps: this.script.steps.length },
      });
    }
    this.cursor++;
    this.calls.push(options.prompt);
    return { step, index };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { step, index } = this.next(options);
    if (step.error !== undefined) throw scriptedFailure(step.error);
    const content: Content[] = [];
    if (step.reasoning) content.push({ type: 'reasoning', text: step.reasoning });
    if (step.text) content.push({ type: 'text', text: step.text });
    for (const call of toolCalls(step, index)) content.push(call);
    return { content, finishReason: finishReason(step), usage: usage(), warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { step, index } = this.next(options);
    const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    if (step.reasoning)
      parts.push({ type: 'reasoning-start', id: 'r0' }, ...chunks(step.reasoning).map((delta) => ({ type: 'reasoning-delta' as const, id: 'r0', delta })), {
        type: 'reasoning-end',
        id: 'r0',
      });
    if (step.text)
      parts.push({ type: 'text-start', id: 't0' }, ...chunks(step.text).map((delta) => ({ type: 'text-delta' as const, id: 't0', delta })), {
        type: 'text-end',
        id: 't0',
      });
    if (step.error !== undefined) parts.push({ type: 'error', error: scriptedFailure(step.error) });
    else {
      parts.push(...toolCalls(step, index));
      parts.push({ type: 'finish', finishReason: finishReason(step), usage: usage() });
    }
    const signal = options.abortSignal;
    let position = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async pull(controller) {
        if (step.delayMs && position > 0 && position < parts.length) await pause(step.delayMs, signal);
        if (signal?.aborted) {
          controller.error(signal.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
          return;
        }
        const part = parts[position++];
        if (part === undefined) controller.close();
        else controller.enqueue(part);
      },
    });
    return { stream };
  }
}

/** Waits `ms`, or less when the call is aborted (the stream then errors with the abort). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Split text into word-sized deltas (whitespace kept with the word before it). */
function chunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function toolCalls(step: ScriptedStep, index: number): Array<Extract<Content, { type: 'tool-call' }>> {
  return (step.toolCalls ?? []).map((call, position) => ({
    type: 'tool-call',
    toolCallId: call.toolCallId ?? `scripted_${index + 1}_${position + 1}`,
    toolName: (call.toolName ?? call.tool)!,
    input: JSON.stringify(call.input ?? {}),
  }));
}

function finishReason(step: ScriptedStep): LanguageModelV3GenerateResult['finishReason'] {
  return step.toolCalls?.length ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' };
}

function usage(): LanguageModelV3GenerateResult['usage'] {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}

function scriptedFailure(message: string): ModelError {
  return new ModelError({ code: 'MODEL_CALL_FAILED', message: `The scripted model failed as scripted: ${message}`, details: { scripted: true } });
}
