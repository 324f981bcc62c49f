import { WaypointError } from './waypoint-error.js';

/** Why a directory cannot be created or written where it was asked for. */
export type UnusableDirectoryReason = 'special_filesystem' | 'read_only_filesystem' | 'not_writable' | 'not_a_directory';

const EXPLANATIONS: Record<UnusableDirectoryReason, string> = {
  special_filesystem: 'it lies on a kernel pseudo file system, which holds no ordinary files',
  read_only_filesystem: 'it lies on a read-only file system',
  not_writable: 'this user may not create entries there',
  not_a_directory: 'a part of the path is a file, not a directory',
};

/**
 * A directory Waypoint was asked to create (an isolated fork's workspace) cannot be created at
 * that place: it is on `/proc`, `/sys` or another pseudo file system, on a read-only mount, in a
 * directory this user may not write, or below a regular file. Refused before anything is written.
 */
export class UnusableDirectoryError extends WaypointError {
  override readonly name: string = 'UnusableDirectoryError';
  readonly path: string;
  readonly reason: UnusableDirectoryReason;

  constructor(options: { path: string; reason: UnusableDirectoryReason; blocker?: string; filesystem?: string; cause?: unknown }) {
    const at =
      options.blocker && options.blocker !== options.path
        ? ` (at ${options.blocker}${options.filesystem ? `, ${options.filesystem}` : ''})`
        : options.filesystem
          ? ` (${options.filesystem})`
          : '';
    super({
      code: 'DIRECTORY_UNUSABLE',
      message: `Cannot create ${options.path}: ${EXPLANATIONS[options.reason]}${at}. Choose a directory on a writable disk; nothing was written.`,
      details: {
        path: options.path,
        reason: options.reason,
        ...(options.blocker ? { blocker: options.blocker } : {}),
        ...(options.filesystem ? { filesystem: options.filesystem } : {}),
      },
      exitCode: 2,
      httpStatus: 400,
      cause: options.cause,
    });
    this.path = options.path;
    this.reason = options.reason;
  }
}
