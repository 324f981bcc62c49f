import { WaypointError } from '../../../model/index.js';

/**
 * Writing the files of a rewind failed part-way; every file already written was put back to its
 * content before the rewind (compensation), and the journal is marked rolled back. Nothing changed.
 */
export class RewindApplyFailedError extends WaypointError {
  override readonly name = 'RewindApplyFailedError';
  readonly path: string | null;

  constructor(options: { journalId: string; path: string | null; reason: string; cause?: unknown }) {
    super({
      code: 'REWIND_APPLY_FAILED',
      message: `Rewinding files failed${options.path ? ` at ${options.path}` : ''}: ${options.reason}. Every file was put back as it was before the rewind; fix the cause and try again.`,
      details: { journalId: options.journalId, path: options.path, reason: options.reason },
      exitCode: 1,
      httpStatus: 500,
      cause: options.cause,
    });
    this.path = options.path;
  }
}
