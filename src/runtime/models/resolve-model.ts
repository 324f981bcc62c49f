import { resolve } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ModelError } from '../runtime-errors.js';
import type { LanguageModelV3 } from './language-model-v3.js';
import { ScriptedModel } from './scripted-model.js';

/** A chosen model and what it is, for display and session records. */
export interface ResolvedModel {
  model: LanguageModelV3;
  /** `openai-compatible`, `anthropic` or `scripted`. */
  provider: string;
  modelId: string;
  /** The model string with any key-bearing parts left out (there are none today). */
  label: string;
  /**
   * A model string that chooses this same model again from any directory (a scripted file's path
   * made absolute, a base URL taken from the environment written inline): what a session records
   * so that resuming it needs no `--model`.
   */
  spec: string;
}

export const MODEL_STRING_FORMS = [
  'openai-compatible:<model>@<baseURL>  (or WAYPOINT_OPENAI_BASE_URL; key WAYPOINT_OPENAI_API_KEY or OPENAI_API_KEY)',
  'anthropic:<model>  (key ANTHROPIC_API_KEY; base URL WAYPOINT_ANTHROPIC_BASE_URL or <model>@<baseURL>)',
  'scripted:<file>  (a JSON file of steps played in order; no network)',
] as const;

/**
 * Chooses a model from a model string (every provider through the Vercel AI SDK):
 * - `openai-compatible:<model>@<baseURL>` — any OpenAI-compatible chat-completions endpoint (Ollama,
 *   llama.cpp, vLLM, a hosted one); the base URL may come from `WAYPOINT_OPENAI_BASE_URL` instead.
 *   The key is `WAYPOINT_OPENAI_API_KEY`, else `OPENAI_API_KEY`; a server on this machine
 *   (localhost, 127.0.0.1, ::1) may run without one.
 * - `anthropic:<model>` — key `ANTHROPIC_API_KEY`; optional base URL `<model>@<baseURL>` or
 *   `WAYPOINT_ANTHROPIC_BASE_URL`.
 * - `scripted:<file>` — a {@link ScriptedModel} reading the file.
 *
 * A missing key or base URL is refused here, before any turn starts, with `MODEL_API_KEY_MISSING` /
 * `MODEL_BASE_URL_MISSING` naming the variable to set; a malformed string is `MODEL_STRING_INVALID`.
 *
 * @example
 * const { model } = resolveModel('openai-compatible:qwen2.5-coder@http://localhost:11434/v1');
 */
export function resolveModel(spec: string, options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ResolvedModel {
  const env = options.env ?? process.env;
  const colon = typeof spec === 'string' ? spec.indexOf(':') : -1;
  if (colon <= 0 || colon === spec.length - 1) throw invalid(spec, 'it has no provider prefix');
  const provider = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  switch (provider) {
    case 'scripted': {
      const file = resolve(options.cwd ?? process.cwd(), rest);
      return { model: ScriptedModel.fromFile(file), provider, modelId: file, label: `scripted:${rest}`, spec: `scripted:${file}` };
    }
    case 'openai-compatible': {
      const { modelId, baseURL: inline } = splitBaseUrl(rest);
      const baseURL = inline ?? nonEmpty(env.WAYPOINT_OPENAI_BASE_URL);
      if (!modelId) throw invalid(spec, 'the model name is empty');
      if (!baseURL) {
        throw new ModelError({
          code: 'MODEL_BASE_URL_MISSING',
          message: `No endpoint for ${spec}: write it as openai-compatible:${modelId}@<baseURL> (e.g. @http://localhost:11434/v1 for Ollama) or set WAYPOINT_OPENAI_BASE_URL.`,
          details: { provider, modelId, variable: 'WAYPOINT_OPENAI_BASE_URL' },
        });
      }
      checkUrl(spec, baseURL);
      const apiKey = nonEmpty(env.WAYPOINT_OPENAI_API_KEY) ?? nonEmpty(env.OPENAI_API_KEY);
      if (!apiKey && !isLoopback(baseURL)) {
        throw new ModelError({
          code: 'MODEL_API_KEY_MISSING',
          message: `No API key for ${baseURL}: set WAYPOINT_OPENAI_API_KEY (or OPENAI_API_KEY). Only a server on this machine (localhost) may run without one.`,
          details: { provider, modelId, baseURL, variables: ['WAYPOINT_OPENAI_API_KEY', 'OPENAI_API_KEY'] },
        });
      }
      const factory = createOpenAICompatible({ name: 'openai-compatible', baseURL, ...(apiKey ? { apiKey } : {}) });
      const label = `openai-compatible:${modelId}@${baseURL}`;
      return { model: factory.chatModel(modelId), provider, modelId, label, spec: label };
    }
    case 'anthropic': {
      const { modelId, baseURL: inline } = splitBaseUrl(rest);
      if (!modelId) throw invalid(spec, 'the model name is empty');
      const baseURL = inline ?? nonEmpty(env.WAYPOINT_ANTHROPIC_BASE_URL);
      if (baseURL) checkUrl(spec, baseURL);
      const apiKey = nonEmpty(env.ANTHROPIC_API_KEY);
      if (!apiKey) {
        throw new ModelError({
          code: 'MODEL_API_KEY_MISSING',
          message: `No API key for ${spec}: set ANTHROPIC_API_KEY (create one at https://console.anthropic.com/).`,
          details: { provider, modelId, variables: ['ANTHROPIC_API_KEY'] },
        });
      }
      const factory = createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) });
      const label = `anthropic:${modelId}${baseURL ? `@${baseURL}` : ''}`;
      return { model: factory.languageModel(modelId), provider, modelId, label, spec: label };
    }
    default:
      throw invalid(spec, `the provider "${provider}" is unknown`);
  }
}

function invalid(spec: unknown, reason: string): ModelError {
  return new ModelError({
    code: 'MODEL_STRING_INVALID',
    message: `Cannot use the model "${String(spec)}": ${reason}. Write one of: ${MODEL_STRING_FORMS.join('; ')}.`,
    details: { model: spec },
  });
}

/** `name@http://host/v1` → name and base URL; an `@` not followed by a URL stays in the name. */
function splitBaseUrl(rest: string): { modelId: string; baseURL: string | undefined } {
  const at = rest.search(/@https?:\/\//);
  if (at < 0) return { modelId: rest, baseURL: undefined };
  return { modelId: rest.slice(0, at), baseURL: rest.slice(at + 1) };
}

function checkUrl(spec: string, url: string): void {
  try {
    new URL(url);
  } catch {
    throw invalid(spec, `the base URL "${url}" is not a URL`);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
}
