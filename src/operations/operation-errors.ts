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

/** A session retention would delete in `GC_NEEDS_CONFIRMATION`'s list. */
export interface SessionToDelete {
  id: string;
  title: string;
  kind: string;
  familyId: string | null;
  lastActivityAt: number | null;
}

/**
 * `keepSessions` would delete sessions and the caller has not confirmed them. Nothing was
 * deleted; `details.sessions` lists exactly what would go (confirm with `confirm: true`, or the
 * ids seen, so a session that became due since is kept).
 *
 * @example
 * if (WaypointError.is(error, 'GC_NEEDS_CONFIRMATION')) await collectGarbage({ waypoint }, { keepSessions: 5, confirm: true });
 */
export class GcNeedsConfirmationError extends ConflictError {
  override readonly name: string = 'GcNeedsConfirmationError';
  readonly sessions: readonly SessionToDelete[];

  /** `hint` says how to confirm in the caller's terms (the CLI: `--yes`); the default names the API. */
  constructor(options: { keepSessions: number; sessions: SessionToDelete[]; hint?: string }) {
    const names = options.sessions.slice(0, 3).map((session) => `${session.id} ${JSON.stringify(session.title)}`);
    super({
      code: 'GC_NEEDS_CONFIRMATION',
      message: `Keeping the ${options.keepSessions} most recently active session families would delete ${options.sessions.length} session(s): ${names.join(', ')}${options.sessions.length > 3 ? ', …' : ''}. ${options.hint ?? 'Review them, then call again with confirm: true.'} Nothing was deleted.`,
      details: { keepSessions: options.keepSessions, sessions: options.sessions },
    });
    this.sessions = Object.freeze([...options.sessions]);
  }
}
