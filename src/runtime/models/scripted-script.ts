import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ModelError } from '../runtime-errors.js';

const ScriptedToolCall = z
  .object({
    /** The tool to call (`write`, `bash` …). `tool` is accepted as a shorter spelling. */
    toolName: z.string().min(1).optional(),
    tool: z.string().min(1).optional(),
    input: z.unknown().default({}),
    /** Defaults to `scripted_<step>_<n>`. */
    toolCallId: z.string().min(1).optional(),
  })
  .refine((call) => (call.toolName ?? call.tool) !== undefined, 'a tool call needs toolName (or tool)');

/** One model call: what the model "says" when it is called for the n-th time. */
export const ScriptedStep = z.object({
  reasoning: z.string().optional(),
  text: z.string().optional(),
  toolCalls: z.array(ScriptedToolCall).optional(),
  /** Milliseconds to wait before each streamed part (a slow model, for interactive demos and tests). */
  delayMs: z.number().int().min(0).max(60_000).optional(),
  /** Make this call fail like a provider would (the turn ends with MODEL_CALL_FAILED). */
  error: z.string().optional(),
});
export type ScriptedStep = z.infer<typeof ScriptedStep>;

/** A scripted model file: `{ "steps": [...] }` or just the array of steps. */
export const ModelScript = z.union([z.object({ steps: z.array(ScriptedStep) }), z.array(ScriptedStep).transform((steps) => ({ steps }))]);
export type ModelScript = z.infer<typeof ModelScript>;

/**
 * Read and validate a scripted model file; `SCRIPT_INVALID` names the file and the first problem.
 *
 * @example
 * const model = new ScriptedModel(loadModelScript('demo-script.json'));
 */
export function loadModelScript(file: string): ModelScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ModelError({
      code: 'SCRIPT_INVALID',
      message: `Cannot read the scripted model file ${file}: ${(error as Error).message}. Give an existing JSON file: scripted:<file>.`,
      details: { file },
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ModelError({
      code: 'SCRIPT_INVALID',
      message: `The scripted model file ${file} is not JSON: ${(error as Error).message}.`,
      details: { file },
      cause: error,
    });
  }
  return parseModelScript(json, file);
}

/**
 * Validate a scripted model's steps (`SCRIPT_INVALID` names the first problem).
 *
 * @example
 * const model = new ScriptedModel(parseModelScript({ steps: [{ text: 'Done.' }] }));
 */
export function parseModelScript(json: unknown, source = 'script'): ModelScript {
  const result = ModelScript.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ModelError({
      code: 'SCRIPT_INVALID',
      message: `The scripted model ${source} is invalid at ${issue.path.join('.') || 'its top level'}: ${issue.message}. Expected { "steps": [{ "text"?, "reasoning"?, "toolCalls"?: [{ "toolName", "input" }] }] }.`,
      details: { source, path: issue.path.map(String) },
    });
  }
  return result.data;
}
