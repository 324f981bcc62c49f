/**
 * The one error type Waypoint raises for anything a caller can act on.
 *
 * Every subclass has a stable `code` (safe to match on across versions), structured `details`,
 * an optional `cause`, and knows how the CLI and a server should report it, so those shells map
 * errors in one line instead of an `instanceof` chain.
 *
 * @example
 * try { await store.getSession(id) } catch (error) {
 *   if (WaypointError.is(error, 'SESSION_NOT_FOUND')) console.error(error.message)
 * }
 */
export class WaypointError extends Error {
  override readonly name: string = 'WaypointError';
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>>;
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: number;
  /** HTTP status a server answers with for this error. */
  readonly httpStatus: number;

  constructor(options: {
    code: string;
    message: string;
    details?: Record<string, unknown>;
    exitCode?: number;
    httpStatus?: number;
    cause?: unknown;
  }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.details = Object.freeze({ ...(options.details ?? {}) });
    this.exitCode = options.exitCode ?? 1;
    this.httpStatus = options.httpStatus ?? 500;
  }

  /** True when `error` is a WaypointError, optionally with the given code. */
  static is(error: unknown, code?: string): error is WaypointError {
    return error instanceof WaypointError && (code === undefined || error.code === code);
  }

  /** A plain object for `--json` output and protocol replies. */
  toJSON(): { code: string; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: { ...this.details } };
  }
}
