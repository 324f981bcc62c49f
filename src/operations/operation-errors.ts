import { ConflictError, WaypointError } from '../model/index.js';

/**
 * The operation needs the session at rest and one of its turns is running. Nothing was changed.
 *
 * @example
 * if (WaypointError.is(error, 'TURN_RUNNING')) await runtime.interrupt(sessionId);
 */
export class TurnRunningError extends ConflictError {
  override readonly name: string = 'TurnRunningError';

  constructor(options: { sessionId: string; action: string }) {
    super({
      code: 'TURN_RUNNING',
      message: `Cannot ${options.action} while a turn is running in session ${options.sessionId}; wait for it to finish or interrupt it first. Nothing was changed.`,
      details: { sessionId: options.sessionId, action: options.action },
    });
  }
}

/**
 * A file operation found the session's working directory gone (it would recreate files in a void). Nothing was changed.
 *
 * @example
 * if (WaypointError.is(error, 'WORKSPACE_MISSING')) await rewind({ waypoint }, { sessionId, messageId, scope: 'conversation' });
 */
export class WorkspaceMissingError extends WaypointError {
  override readonly name: string = 'WorkspaceMissingError';

  constructor(options: { sessionId: string; workdir: string }) {
    super({
      code: 'WORKSPACE_MISSING',
      message: `Session ${options.sessionId} works in ${options.workdir}, which does not exist (moved or deleted?). Put the directory back, or rewind the conversation alone; nothing was changed.`,
      details: { ...options },
      exitCode: 4,
      httpStatus: 409,
    });
  }
}

/**
 * `undo` of the last turn found no turn with file changes left to undo (among the newest 50).
 *
 * @example
 * await previewRewind({ waypoint }, { sessionId, lastTurn: true }); // NOTHING_TO_UNDO when no turn changed files
 */
export class NothingToUndoError extends ConflictError {
  override readonly name: string = 'NothingToUndoError';

  constructor(options: { sessionId: string }) {
    super({
      code: 'NOTHING_TO_UNDO',
      message: 'Nothing to undo: no turn of this session has file changes left to undo.',
      details: { sessionId: options.sessionId },
    });
  }
}
