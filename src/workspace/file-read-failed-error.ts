import { WaypointError } from '../model/errors/index.js';

/**
 * A file inside the workspace exists but its state or content could not be read (permissions,
 * a special file, an I/O error). `reason` is the system error code (`EACCES`, `ENXIO` …) or a
 * short description.
 */
export class FileReadFailedError extends WaypointError {
  override readonly name = 'FileReadFailedError';
  declare readonly code: 'FILE_READ_FAILED';
  readonly path: string;
  readonly reason: string;

  constructor(options: { path: string; reason: string; cause?: unknown }) {
    super({
      code: 'FILE_READ_FAILED',
      message: `Cannot read "${options.path}" (${options.reason}). Check that it is a regular file you may read, or add it to .waypointignore to leave it out of checkpoints.`,
      details: { path: options.path, reason: options.reason },
      exitCode: 1,
      httpStatus: 500,
      cause: options.cause,
    });
    this.path = options.path;
    this.reason = options.reason;
  }
}
