import { WaypointError } from '../model/errors/index.js';

/** What the refused operation would have done to a protected path. */
export type ProtectedOperation = 'resolve' | 'delete' | 'move';

/**
 * A caller path names (or, for a delete or move, contains) a path the workspace was told to
 * protect: Waypoint's own store (database, its `-wal`/`-shm`, the blob packs beside it). Raised by
 * confinement before anything is read or written, whichever tool asked and through whatever
 * symbolic links or `..` the path took; a tool call gets it as its error result.
 *
 * @example
 * try { workspace.resolve('.waypoint/waypoint.db') } catch (error) {
 *   if (WaypointError.is(error, 'PATH_PROTECTED')) console.error(error.message)
 * }
 */
export class PathProtectedError extends WaypointError {
  override readonly name = 'PathProtectedError';
  declare readonly code: 'PATH_PROTECTED';
  /** The path as the caller gave it. */
  readonly path: string;
  /** The protected path it reaches (real, absolute). */
  readonly protectedPath: string;

  constructor(options: { path: string; root: string | null; protectedPath: string; operation: ProtectedOperation }) {
    const shown = options.path.replace(/\0/g, '\\0');
    const how =
      options.operation === 'resolve'
        ? `it is inside ${options.protectedPath}`
        : `it contains ${options.protectedPath}, which a ${options.operation} would take with it`;
    super({
      code: 'PATH_PROTECTED',
      message: `Refused path "${shown}": ${how}, part of Waypoint's own store, which no tool may write, delete or move. Nothing was read or written; work on files outside it.`,
      details: { path: shown, root: options.root, protectedPath: options.protectedPath, operation: options.operation },
      exitCode: 2,
      httpStatus: 403,
    });
    this.path = options.path;
    this.protectedPath = options.protectedPath;
  }
}
