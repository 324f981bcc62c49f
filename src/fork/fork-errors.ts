import { ConflictError, CORRUPT_CONTENT_EXIT_CODE, InvalidArgumentError, WaypointError } from '../model/index.js';

/**
 * `/fork` or `/fork latest` in a session that has not changed any file yet (or whose every change
 * was already rewound): there is no file change to fork back to.
 */
export class NoWorkspaceCheckpointError extends WaypointError {
  override readonly name: string = 'NoWorkspaceCheckpointError';

  constructor(options: { sessionId: string }) {
    super({
      code: 'NO_WORKSPACE_CHECKPOINT',
      message: 'No workspace checkpoint is available yet.',
      details: { sessionId: options.sessionId },
      exitCode: 4,
      httpStatus: 409,
    });
  }
}

/**
 * A fork in a shared workspace would change the parent's files: it is refused until the caller has
 * seen the preview and passes `confirm: true`. Nothing was changed; `details.files` lists what would be.
 *
 * @example
 * try { await forkSession({ waypoint }, request) } catch (error) {
 *   if (WaypointError.is(error, 'FORK_NEEDS_CONFIRMATION')) await forkSession({ waypoint }, { ...request, confirm: true });
 * }
 */
export class ForkConfirmationRequiredError extends WaypointError {
  override readonly name: string = 'ForkConfirmationRequiredError';

  /** `hint` says how to confirm in the caller's terms (the CLI: `--yes`); the default names the API. */
  constructor(options: {
    sessionId: string;
    files: Array<{ path: string; action: string; status: string }>;
    hint?: string;
    details?: Record<string, unknown>;
  }) {
    const names = options.files.slice(0, 3).map((file) => file.path.replace(/^workspace:/, ''));
    const hint = options.hint ?? 'Review previewFork(), then fork again with confirm: true, or fork with an isolated workspace.';
    super({
      code: 'FORK_NEEDS_CONFIRMATION',
      message: `This fork shares session ${options.sessionId}'s directory and would change ${options.files.length} file(s) there (${names.join(', ')}${options.files.length > 3 ? ', …' : ''}). ${hint} Nothing was changed.`,
      details: { sessionId: options.sessionId, files: options.files, ...options.details },
      exitCode: 4,
      httpStatus: 409,
    });
  }
}

/** The parent has a running turn and this kind of fork needs it idle (from a checkpoint or a message). */
export function parentRunningError(sessionId: string, turnId: string): ConflictError {
  return new ConflictError({
    code: 'PARENT_TURN_RUNNING',
    message: `Session ${sessionId} is running turn ${turnId}; wait for it to finish (or fork with the stable fork button at a completed reply, or open a side chat). Nothing was changed.`,
    details: { sessionId, turnId },
  });
}

/** The message cannot be a stable fork point; `reason` says why in words a person can act on. */
export function notStableBoundaryError(messageId: string, reason: string): InvalidArgumentError {
  return new InvalidArgumentError({ code: 'NOT_A_STABLE_BOUNDARY', parameter: 'messageId', value: messageId, reason });
}

/**
 * The state of the workspace at the fork point cannot be rebuilt (a change after it kept no
 * content, or its snapshot is gone). Nothing was written. `corrupt`: a snapshot is there but
 * corrupt, so the exit code is `CORRUPT_CONTENT_EXIT_CODE`.
 */
export class ForkStateUnavailableError extends WaypointError {
  override readonly name: string = 'ForkStateUnavailableError';

  constructor(options: { paths: Array<{ path: string; checkpointId: string; reason: string }>; corrupt?: boolean; cause?: unknown }) {
    super({
      code: 'FORK_STATE_UNAVAILABLE',
      message: `The files as they were at the fork point cannot be rebuilt: ${options.paths
        .slice(0, 3)
        .map((path) => `${path.path} (${path.reason})`)
        .join('; ')}${options.paths.length > 3 ? '; …' : ''}. Fork at a later point, or in the shared workspace. Nothing was written.`,
      details: { paths: options.paths },
      exitCode: options.corrupt ? CORRUPT_CONTENT_EXIT_CODE : 4,
      cause: options.cause,
      httpStatus: 409,
    });
  }
}

/**
 * A git command the isolated fork ran in the parent's repository failed (git's own message is in
 * `details.stderr`). The fork was not created and its partial directory and work tree
 * registration were removed.
 */
export class GitCommandFailedError extends WaypointError {
  override readonly name: string = 'GitCommandFailedError';

  constructor(options: { args: string[]; cwd: string; stderr: string; cause?: unknown }) {
    super({
      code: 'GIT_COMMAND_FAILED',
      message: `git ${options.args.slice(0, 3).join(' ')} failed in ${options.cwd}: ${options.stderr || 'no message'}. The fork was not created; fix the repository (or fork a directory outside git) and try again.`,
      details: { args: options.args, cwd: options.cwd, stderr: options.stderr },
      exitCode: 1,
      httpStatus: 500,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
  }
}

/** `discardFork` of a session that has no directory of its own (a shared-workspace fork, a side chat, a main session). */
export class NotAnIsolatedForkError extends WaypointError {
  override readonly name: string = 'NotAnIsolatedForkError';

  constructor(options: { sessionId: string; strategy: string | null }) {
    super({
      code: 'NOT_AN_ISOLATED_FORK',
      message: `Session ${options.sessionId} is not an isolated fork (${options.strategy === null ? 'not a fork' : `a ${options.strategy}-workspace fork`}): it has no directory of its own to discard. Nothing was changed.`,
      details: { sessionId: options.sessionId, strategy: options.strategy },
      exitCode: 2,
      httpStatus: 400,
    });
  }
}

/**
 * `discardFork` found files in the fork's directory whose content neither the store nor git's HEAD
 * holds: deleting the directory would lose them. Nothing was changed; `force` deletes anyway.
 */
export class ForkHasUnrecordedChangesError extends WaypointError {
  override readonly name: string = 'ForkHasUnrecordedChangesError';

  constructor(options: { sessionId: string; dir: string; paths: string[]; hint?: string }) {
    const names = options.paths.slice(0, 3).join(', ');
    super({
      code: 'FORK_HAS_UNRECORDED_CHANGES',
      message: `The directory of fork ${options.sessionId} (${options.dir}) holds ${options.paths.length} file(s) whose content is recorded neither in the store nor in git's HEAD (${names}${options.paths.length > 3 ? ', …' : ''}); deleting it would lose them. ${options.hint ?? 'Copy them elsewhere, or discard with force: true.'} Nothing was changed.`,
      details: { sessionId: options.sessionId, dir: options.dir, paths: options.paths },
      exitCode: 4,
      httpStatus: 409,
    });
  }
}
