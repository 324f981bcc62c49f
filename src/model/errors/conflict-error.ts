import { WaypointError } from './waypoint-error.js';

/**
 * The operation is valid in general but not against the current state (the head moved under
 * us, a turn is running, a message belongs to another conversation tree …). Nothing was changed;
 * retrying after refreshing state may succeed. `exitCode` defaults to 4; a conflict caused by
 * corrupt stored content uses `CORRUPT_CONTENT_EXIT_CODE` instead.
 *
 * @example
 * if (error instanceof ConflictError) console.error(error.code, error.message); // nothing was changed
 */
export class ConflictError extends WaypointError {
  override readonly name: string = 'ConflictError';

  constructor(options: { code: string; message: string; details?: Record<string, unknown>; cause?: unknown; exitCode?: number }) {
    super({ ...options, exitCode: options.exitCode ?? 4, httpStatus: 409 });
  }
}
