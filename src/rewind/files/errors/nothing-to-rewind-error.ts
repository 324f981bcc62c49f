import { WaypointError } from '../../../model/index.js';

/**
 * There is no file change to undo: the session has no checkpoints at all (`NO_CHECKPOINTS`), or every
 * change in the asked range was already rewound or made no difference (`NOTHING_TO_REWIND`).
 */
export class NothingToRewindError extends WaypointError {
  override readonly name = 'NothingToRewindError';

  constructor(options: { code: 'NO_CHECKPOINTS' | 'NOTHING_TO_REWIND'; message: string; details?: Record<string, unknown> }) {
    super({ ...options, exitCode: 4, httpStatus: 409 });
  }
}
