import { WaypointError } from './waypoint-error.js';

/**
 * The exit code of every refusal caused by corrupt stored content, whichever command met it (a
 * diff, a rewind, a redo, a fork): retrying cannot help, the store needs repair.
 */
export const CORRUPT_CONTENT_EXIT_CODE = 6;

/**
 * Stored bytes did not hash to the content address they were stored under (or could not be
 * decoded). Waypoint never returns such bytes.
 */
export class BlobCorruptError extends WaypointError {
  override readonly name: string = 'BlobCorruptError';
  readonly hash: string;

  constructor(options: { hash: string; reason: string; cause?: unknown }) {
    super({
      code: 'BLOB_CORRUPT',
      message: `Blob ${options.hash} is corrupt: ${options.reason}. Its content cannot be trusted; restore the store from a backup or run \`waypoint gc\` to report what depends on it.`,
      details: { hash: options.hash, reason: options.reason },
      exitCode: CORRUPT_CONTENT_EXIT_CODE,
      httpStatus: 500,
      cause: options.cause,
    });
    this.hash = options.hash;
  }
}
