import { WaypointError } from '../model/index.js';

/** The command line itself is wrong (unknown command or option, missing argument). Exit code 2. */
export class UsageError extends WaypointError {
  override readonly name: string = 'UsageError';

  constructor(reason: string, options: { command?: string; details?: Record<string, unknown> } = {}) {
    super({
      code: 'USAGE',
      message: `${reason}. Run \`waypoint ${options.command ? `${options.command} ` : ''}--help\` for usage.`,
      details: { reason, ...(options.command ? { command: options.command } : {}), ...options.details },
      exitCode: 2,
      httpStatus: 400,
    });
  }
}

/** No store file where the CLI was told to look. Nothing was created. Exit code 5, like other store errors. */
export class StoreNotFoundError extends WaypointError {
  override readonly name: string = 'StoreNotFoundError';

  constructor(path: string) {
    super({
      code: 'STORE_NOT_FOUND',
      message: `No Waypoint store at ${path}. Point at one with --store <file> or $WAYPOINT_HOME (a store is created when a session is recorded; \`waypoint demo\` makes its own).`,
      details: { path },
      exitCode: 5,
      httpStatus: 404,
    });
  }
}
