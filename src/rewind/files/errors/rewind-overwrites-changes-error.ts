import { ConflictError } from '../../../model/index.js';

/** A file a direct rewind would overwrite although it changed since the agent wrote it. */
export interface ChangedFile {
  path: string;
  /** What the file holds now (null: absent). */
  currentHash: string | null;
  /** What the agent's newest change in the rewind left there. */
  expectedHash: string | null;
  reason: string;
}

/**
 * A direct rewind (a checkpoint, the latest one, an input's change, a cascade) would overwrite
 * content that changed since the agent wrote it, and the caller did not allow it. Nothing was
 * changed; `details.files` lists the files. Allowing it (`force`) keeps what they hold now, so a
 * redo brings it back. Exit code 4, like every conflict with the current state.
 *
 * @example
 * if (WaypointError.is(error, 'REWIND_OVERWRITES_CHANGES')) await rewind({ waypoint }, { ...request, force: true });
 */
export class RewindOverwritesChangesError extends ConflictError {
  override readonly name = 'RewindOverwritesChangesError';
  readonly files: readonly ChangedFile[];

  /** `hint` says how to allow it in the caller's terms (the CLI: `--force`); the default names the API. */
  constructor(options: { sessionId: string; files: ChangedFile[]; hint?: string }) {
    const names = options.files.slice(0, 5).map((file) => file.path.replace(/^workspace:/, ''));
    const more = options.files.length > 5 ? ` and ${options.files.length - 5} more` : '';
    super({
      code: 'REWIND_OVERWRITES_CHANGES',
      message: `This rewind would overwrite ${options.files.length === 1 ? 'a file' : `${options.files.length} files`} changed since the agent wrote ${options.files.length === 1 ? 'it' : 'them'}: ${names.join(', ')}${more}. Nothing was changed. ${options.hint ?? 'Check them, then rewind again with force: true (what they hold now is kept, so a redo brings it back).'}`,
      details: { sessionId: options.sessionId, files: options.files },
    });
    this.files = Object.freeze([...options.files]);
  }
}
