import { CORRUPT_CONTENT_EXIT_CODE, WaypointError } from '../../../model/index.js';

/** A checkpoint whose saved content cannot be read. */
export interface MissingSnapshot {
  checkpointId: string;
  path: string;
  /** The blob that is gone or corrupt; null when the checkpoint never kept content (skipped). */
  hash: string | null;
  reason: string;
  /** The blob is there but corrupt (not merely gone): the refusal exits with `CORRUPT_CONTENT_EXIT_CODE`. */
  corrupt?: boolean;
}

/**
 * A rewind needs saved content that is missing, corrupt or was never kept (a skipped checkpoint).
 * The rewind gave up as a whole before writing anything.
 */
export class SnapshotMissingError extends WaypointError {
  override readonly name = 'SnapshotMissingError';
  readonly snapshots: readonly MissingSnapshot[];

  constructor(options: { snapshots: MissingSnapshot[]; cause?: unknown }) {
    const listed = options.snapshots
      .slice(0, 5)
      .map((snapshot) => `${snapshot.path} (checkpoint ${snapshot.checkpointId}: ${snapshot.reason})`)
      .join('; ');
    const more = options.snapshots.length > 5 ? ` and ${options.snapshots.length - 5} more` : '';
    super({
      code: 'SNAPSHOT_MISSING',
      message: `Cannot rewind: the saved content of ${listed}${more} is not available. Nothing was changed. Rewind to a later message, or restore the other files one checkpoint at a time.`,
      details: { snapshots: options.snapshots },
      exitCode: options.snapshots.some((snapshot) => snapshot.corrupt) ? CORRUPT_CONTENT_EXIT_CODE : 4,
      httpStatus: 409,
      cause: options.cause,
    });
    this.snapshots = Object.freeze([...options.snapshots]);
  }
}
