import { WaypointError } from './waypoint-error.js';

/** The longest file name (one path component) Linux and macOS file systems take, in bytes. */
export const MAX_NAME_BYTES = 255;
/** The longest path the kernel resolves in one system call, in bytes (Linux `PATH_MAX` less its NUL). */
export const MAX_PATH_BYTES = 4095;

/**
 * A path has a name longer than the file system allows (255 bytes) or is longer as a whole than the
 * system resolves (4095 bytes), so nothing can be created or read there. Raised before anything is
 * touched; nothing was changed.
 */
export class NameTooLongError extends WaypointError {
  override readonly name: string = 'NameTooLongError';
  readonly path: string;

  constructor(options: { path: string; component?: string; cause?: unknown }) {
    const component = options.component;
    const what =
      component === undefined
        ? `it is ${Buffer.byteLength(options.path)} bytes long, more than the ${MAX_PATH_BYTES} the system resolves`
        : `${component === options.path ? 'it' : `its name "${shorten(component)}"`} is ${Buffer.byteLength(component)} bytes long, more than the ${MAX_NAME_BYTES} a file name may have`;
    super({
      code: 'NAME_TOO_LONG',
      message: `Cannot use the path "${shorten(options.path)}": ${what}. Use a shorter name; nothing was changed.`,
      details: { path: options.path, ...(component === undefined ? {} : { component, bytes: Buffer.byteLength(component) }) },
      exitCode: 2,
      httpStatus: 400,
      cause: options.cause,
    });
    this.path = options.path;
  }

  /** The error for the first name of `path` over 255 bytes, or for the whole path over 4095; null when it fits. */
  static check(path: string): NameTooLongError | null {
    for (const component of path.split('/')) {
      if (Buffer.byteLength(component) > MAX_NAME_BYTES) return new NameTooLongError({ path, component });
    }
    return Buffer.byteLength(path) > MAX_PATH_BYTES ? new NameTooLongError({ path }) : null;
  }
}

/** The first 40 and last 20 characters of a long text, so a message stays readable. */
function shorten(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 40)}…${text.slice(-20)}`;
}
