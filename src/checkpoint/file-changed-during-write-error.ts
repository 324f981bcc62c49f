import { ConflictError } from '../model/errors/index.js';

/**
 * A write was refused because the file changed between the moment it was read (to keep what it
 * held) and the moment the new content would have replaced it: someone saved it meanwhile. Their
 * file is in place, untouched, and nothing was recorded. Read the file again and redo the write.
 */
export class FileChangedDuringWriteError extends ConflictError {
  override readonly name = 'FileChangedDuringWriteError';
  declare readonly code: 'FILE_CHANGED_DURING_WRITE';
  readonly path: string;

  constructor(options: { path: string }) {
    super({
      code: 'FILE_CHANGED_DURING_WRITE',
      message: `"${options.path}" changed since it was read (someone saved it while this write ran); it was left as they saved it and nothing was written or recorded. Read it again and redo the change.`,
      details: { path: options.path },
    });
    this.path = options.path;
  }
}
