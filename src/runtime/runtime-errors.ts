import { WaypointError } from '../model/index.js';

/** Codes of errors about choosing and reaching a model; stable, safe to match on. */
export type ModelErrorCode =
  | 'MODEL_STRING_INVALID'
  | 'MODEL_API_KEY_MISSING'
  | 'MODEL_BASE_URL_MISSING'
  | 'MODEL_UNREACHABLE'
  | 'MODEL_AUTH_FAILED'
  | 'MODEL_CALL_FAILED'
  | 'SCRIPT_INVALID'
  | 'SCRIPT_EXHAUSTED';

/**
 * A model could not be chosen or called: a malformed model string, a missing key or base URL, an
 * endpoint that does not answer, a refused key, a scripted model file that is invalid or played to
 * its end. The message says what to set or check. Exit code 3 (configuration / environment).
 *
 * @example
 * if (WaypointError.is(error, 'MODEL_API_KEY_MISSING')) console.error(error.message);
 */
export class ModelError extends WaypointError {
  override readonly name: string = 'ModelError';
  declare readonly code: ModelErrorCode;

  constructor(options: { code: ModelErrorCode; message: string; details?: Record<string, unknown>; cause?: unknown }) {
    super({ ...options, exitCode: 3, httpStatus: options.code === 'MODEL_UNREACHABLE' || options.code === 'MODEL_CALL_FAILED' ? 502 : 400 });
  }
}
