import { WaypointError } from './waypoint-error.js';

/**
 * A caller passed a value Waypoint cannot use; nothing was changed.
 *
 * @example
 * throw new InvalidArgumentError({ parameter: 'text', value: '', reason: 'type a request.' });
 */
export class InvalidArgumentError extends WaypointError {
  override readonly name: string = 'InvalidArgumentError';
  readonly parameter: string;
  readonly value: unknown;

  constructor(options: { parameter: string; value: unknown; reason: string; code?: string; cause?: unknown }) {
    super({
      code: options.code ?? 'INVALID_ARGUMENT',
      message: `Invalid ${options.parameter}: ${options.reason}`,
      details: { parameter: options.parameter, value: options.value },
      exitCode: 2,
      httpStatus: 400,
      cause: options.cause,
    });
    this.parameter = options.parameter;
    this.value = options.value;
  }
}
