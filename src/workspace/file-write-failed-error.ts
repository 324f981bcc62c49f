import { WaypointError } from '../model/errors/index.js';
import { explainReason } from './error-reason.js';

/** What was being attempted when a write failed. */
export type FileWriteOperation = 'write' | 'delete' | 'move' | 'mkdir' | 'materialize';

/**
 * Writing, deleting or moving a file inside the workspace failed. The file is left as it was
 * before the call (writes go through a temp file that is removed on failure).
 */
export class FileWriteFailedError extends WaypointError {
  override readonly name = 'FileWriteFailedError';
  declare readonly code: 'FILE_WRITE_FAILED';
  readonly path: string;
  readonly operation: FileWriteOperation;
  readonly reason: string;

  constructor(options: { path: string; operation: FileWriteOperation; reason: string; cause?: unknown }) {
    const explained = explainReason(options.reason);
    super({
      code: 'FILE_WRITE_FAILED',
      message: explained
        ? `Could not ${options.operation} "${options.path}" (${options.reason}: ${explained}); the file was left unchanged.`
        : `Could not ${options.operation} "${options.path}" (${options.reason}); the file was left unchanged. Check that its directory exists as a directory and is writable, and that the disk is not full.`,
      details: { path: options.path, operation: options.operation, reason: options.reason },
      exitCode: 1,
      httpStatus: 500,
      cause: options.cause,
    });
    this.path = options.path;
    this.operation = options.operation;
    this.reason = options.reason;
  }
}
