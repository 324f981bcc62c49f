import { APICallError, RetryError } from 'ai';
import { WaypointError } from '../../model/index.js';
import { ModelError } from '../runtime-errors.js';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ECONNRESET',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * Turns whatever a provider call threw into a {@link ModelError} a person can act on:
 * `MODEL_UNREACHABLE` (nothing answers at the endpoint), `MODEL_AUTH_FAILED` (401/403: the key was
 * refused), else `MODEL_CALL_FAILED` with the provider's status and message.
 */
export function toModelError(error: unknown, model: { provider: string; modelId: string }): WaypointError {
  if (error instanceof WaypointError) return error;
  const last = RetryError.isInstance(error) ? (error.lastError ?? error) : error;
  const where = `${model.provider}:${model.modelId}`;
  const code = connectionCode(last);
  if (code !== null) {
    const url = APICallError.isInstance(last) ? last.url : undefined;
    return new ModelError({
      code: 'MODEL_UNREACHABLE',
      message: `Cannot reach the model ${where}${url ? ` at ${url}` : ''} (${code}). Check that the server is running and the base URL is right (WAYPOINT_OPENAI_BASE_URL / <model>@<baseURL>).`,
      details: { provider: model.provider, modelId: model.modelId, url: url ?? null, reason: code },
      cause: error,
    });
  }
  if (APICallError.isInstance(last) && (last.statusCode === 401 || last.statusCode === 403)) {
    return new ModelError({
      code: 'MODEL_AUTH_FAILED',
      message: `The model ${where} refused the API key (HTTP ${last.statusCode}). Check WAYPOINT_OPENAI_API_KEY / OPENAI_API_KEY / ANTHROPIC_API_KEY.`,
      details: { provider: model.provider, modelId: model.modelId, status: last.statusCode, url: last.url },
      cause: error,
    });
  }
  const status = APICallError.isInstance(last) ? last.statusCode : undefined;
  return new ModelError({
    code: 'MODEL_CALL_FAILED',
    message: `The model ${where} failed${status ? ` (HTTP ${status})` : ''}: ${(last as Error)?.message ?? String(last)}`,
    details: { provider: model.provider, modelId: model.modelId, status: status ?? null },
    cause: error,
  });
}

function connectionCode(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; current && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
    if (current instanceof Error && /fetch failed|Cannot connect to API/i.test(current.message) && !(current as { cause?: unknown }).cause)
      return 'connection failed';
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
