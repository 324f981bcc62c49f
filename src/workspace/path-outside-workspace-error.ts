import { WaypointError } from '../model/errors/index.js';

/** Why a path was refused by workspace confinement. */
export type PathRefusalReason = 'parent_escape' | 'absolute_outside' | 'nul_byte' | 'symlink_escape' | 'symlink_loop';

const EXPLANATIONS: Record<PathRefusalReason, string> = {
  parent_escape: 'it uses ".." to climb out of the root',
  absolute_outside: 'it is an absolute path outside every workspace root',
  nul_byte: 'it contains a NUL byte',
  symlink_escape: 'a symbolic link along it resolves outside the root',
  symlink_loop: 'its symbolic links form a cycle',
};

/**
 * A caller-supplied path would read or write outside the workspace roots. Raised
 * before anything is read or written.
 *
 * @example
 * try { workspace.resolve('../etc/passwd') } catch (error) {
 *   if (WaypointError.is(error, 'PATH_OUTSIDE_WORKSPACE')) console.error(error.message)
 * }
 */
export class PathOutsideWorkspaceError extends WaypointError {
  override readonly name = 'PathOutsideWorkspaceError';
  declare readonly code: 'PATH_OUTSIDE_WORKSPACE';
  /** The path as the caller gave it (NUL bytes shown as \0). */
  readonly path: string;
  /** Name of the root the path was resolved against, or null when no root applies. */
  readonly root: string | null;
  readonly reason: PathRefusalReason;

  constructor(options: { path: string; root: string | null; reason: PathRefusalReason; cause?: unknown }) {
    const shown = options.path.replace(/\0/g, '\\0');
    const where = options.root === null ? 'the workspace' : `root "${options.root}"`;
    super({
      code: 'PATH_OUTSIDE_WORKSPACE',
      message: `Refused path "${shown}": ${EXPLANATIONS[options.reason]}. Use a path inside ${where}; nothing was read or written.`,
      details: { path: shown, root: options.root, reason: options.reason },
      exitCode: 2,
      httpStatus: 400,
      cause: options.cause,
    });
    this.path = options.path;
    this.root = options.root;
    this.reason = options.reason;
  }
}
