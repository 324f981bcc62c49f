import { WaypointError } from '../../../model/index.js';

/** `redo` named a rewind this session never applied. */
export class RewindNotFoundError extends WaypointError {
  override readonly name = 'RewindNotFoundError';

  constructor(options: { sessionId: string; rewindId: string }) {
    super({
      code: 'REWIND_NOT_FOUND',
      message: `Session ${options.sessionId} has no applied file rewind "${options.rewindId}". List them with listRewinds(sessionId).`,
      details: { ...options },
      exitCode: 3,
      httpStatus: 404,
    });
  }
}
