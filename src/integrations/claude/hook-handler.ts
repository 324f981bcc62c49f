import { openCaptureContext, compactScanState } from '../../checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../engine/index.js';
import { parseInput, WaypointError, type Session } from '../../model/index.js';
import type { ScanIo } from '../../workspace/index.js';
import { waypointSessionIdFor } from './claude-ids.js';
import { endRunningTurns, recordFinalReply, runningTurn as runningTurnOf } from '../agent-turns.js';
import { ensureClaudeSession, startPromptTurn, turnForEvent } from './claude-session.js';
import { ClaudeHookEvent } from './hook-event.js';
import { logHookFailure } from '../hook-log.js';
import { sessionLockPath, sessionStatePath } from '../hook-paths.js';
import { loadHookState, saveHookState, type HookState } from '../hook-state.js';
import { withPathLock } from '../session-lock.js';
import { afterTool, beforeTool, closeOpenCalls, closeScanWindow, type ToolCoverage } from '../tool-capture.js';
import { changesNothing, coverageOf, fileToolPath } from './tool-coverage.js';
import { mirrorTranscript } from './transcript-mirror.js';

export interface ClaudeHookOptions {
  /** The store file the session is recorded in; for a database store, the file its URL is kept in (the handler's own files live beside it). */
  storePath: string;
  /** The store to record into when it is not the file `storePath`: a database URL. */
  location?: string;
  /** How long to wait for another hook process of the same session (default 30 s). */
  lockTimeoutMs?: number;
  /** The store already open (the resident helper keeps it open between events); default: opened and closed for this event. */
  waypoint?: Waypoint;
  /** The workspace scans' filesystem calls (the resident helper's change tracker); default node:fs. */
  scanIo?: Partial<ScanIo>;
  /**
   * Takes work that may wait until the event is answered (the resident helper runs it then, before
   * its next event): rewriting the session's scan state whole when its chain grew long, under the
   * session's lock. Without it, that work is left to a later event's save.
   */
  defer?: (task: () => Promise<void>) => void;
}

/**
 * Records one Claude Code hook event in the session it belongs to (see the README's "Use it with
 * Claude Code"): a prompt starts a turn, a file tool's call becomes a `tool` checkpoint with its
 * before and after, any other tool that may change files is scanned before and after, Stop ends
 * the turn; the transcript's new entries are mirrored at each event. Events of one Claude session
 * are handled one at a time (a lock beside the store), so parallel calls and concurrent hook
 * processes never interleave their records. Throws on bad input or a failure: see
 * {@link runClaudeHook} for the form that never does.
 */
export async function handleClaudeHook(input: unknown, options: ClaudeHookOptions): Promise<void> {
  const event = parseInput(ClaudeHookEvent, input, 'hook event');
  const sessionId = waypointSessionIdFor(event.session_id);
  const lockPath = sessionLockPath(options.storePath, sessionId);
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  await withPathLock(lockPath, lockTimeoutMs, async () => {
    const waypoint = options.waypoint ?? (await openWaypoint({ path: options.location ?? options.storePath }));
    try {
      const session = await ensureClaudeSession(waypoint, event);
      const statePath = sessionStatePath(options.storePath, session.id);
      const state = loadHookState(statePath, event.session_id);
      await dispatch(waypoint, session, state, event, options.scanIo);
      saveHookState(statePath, state);
      const { defer, waypoint: open } = options;
      if (defer !== undefined && open !== undefined) {
        defer(async () => {
          await withPathLock(lockPath, lockTimeoutMs, () => compactScanState(open.store, open.blobs, session.id));
        });
      }
    } finally {
      if (options.waypoint === undefined) await waypoint.close();
    }
  });
}

async function dispatch(waypoint: Waypoint, session: Session, state: HookState, event: ClaudeHookEvent, scanIo: Partial<ScanIo> | undefined): Promise<void> {
  const name = event.hook_event_name;
  const open = async (turnId: string) => {
    const context = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId });
    return scanIo === undefined ? context : { ...context, scanIo };
  };
  if (name === 'UserPromptSubmit') {
    // A background command's window closes first: what it wrote belongs to the prompt that started it.
    await closeScanWindow(open, state);
    // Claude's notice that a background command ended comes as a prompt; it is no rewind target of the person's.
    const kind = isTaskNotification(event.prompt) ? 'task_notification' : 'input';
    const turnId = await startPromptTurn(waypoint, session, state, event.prompt_id ?? `prompt-${Date.now()}`, event.prompt ?? '', kind);
    await mirrorTranscript(waypoint, session.id, state, event.transcript_path, turnId);
    return;
  }
  if (name === 'PreToolUse' || name === 'PostToolUse' || name === 'PostToolUseFailure') {
    const needsTurn = coverageOf(event.tool_name ?? '') !== 'none' || name !== 'PreToolUse';
    const turnId = needsTurn ? await turnForEvent(waypoint, session, state, event) : await runningTurn(waypoint, session);
    await mirrorTranscript(waypoint, session.id, state, event.transcript_path, turnId);
    if (turnId === null) return;
    const context = await open(turnId);
    if (name === 'PreToolUse') await beforeTool(context, state, event, claudeCoverage(event));
    else await afterTool(context, state, event);
    return;
  }
  const turnId = await runningTurn(waypoint, session);
  await mirrorTranscript(waypoint, session.id, state, event.transcript_path, turnId);
  // SessionEnd: Claude exits; a prompt it was interrupted in (no Stop came) ends here, so the session is idle for a rewind.
  if ((name === 'Stop' || name === 'SessionEnd') && turnId !== null) {
    await closeOpenCalls(await open(turnId), state, { final: name === 'SessionEnd' });
    await endRunningTurns(waypoint, session.id, await recordFinalReply(waypoint, session.id, turnId, event.last_assistant_message, 'claude-stop-event'));
  }
  // Claude exits: a background command's window left open past its prompt's Stop closes too.
  if (name === 'SessionEnd') await closeScanWindow(open, state);
}

/** Claude's file tools name their one file; Bash (foreground or `run_in_background`) and every other tool that may change files is scanned. */
function claudeCoverage(event: ClaudeHookEvent): ToolCoverage {
  const coverage = coverageOf(event.tool_name ?? '');
  if (coverage === 'none') return { kind: 'none' };
  if (coverage === 'scan') return { kind: 'scan', background: event.tool_input?.run_in_background === true };
  const path = fileToolPath(event.tool_input);
  return path === null ? { kind: 'none' } : { kind: 'files', paths: [path] };
}

/** Claude's notice that a background command ended, sent as a prompt: `<task-notification>…`. */
function isTaskNotification(prompt: string | undefined): boolean {
  return typeof prompt === 'string' && prompt.trimStart().startsWith('<task-notification>');
}

function runningTurn(waypoint: Waypoint, session: Session): Promise<string | null> {
  return runningTurnOf(waypoint, session.id);
}

/**
 * The hook command's body: handles the event in `stdin` and never fails the agent — a failure is
 * logged beside the store (`waypoint hooks status` shows it) and the process still exits 0, so
 * Claude Code goes on whatever happens here. Prints nothing (a UserPromptSubmit hook's output
 * would reach the model).
 */
export async function runClaudeHook(stdin: string, options: ClaudeHookOptions): Promise<void> {
  let event: { hook_event_name?: unknown; session_id?: unknown; tool_name?: unknown } = {};
  try {
    event = JSON.parse(stdin) as typeof event;
    if (changesNothing(event)) return;
    await handleClaudeHook(event, options);
  } catch (error) {
    logHookFailure(options.storePath, {
      event: typeof event.hook_event_name === 'string' ? event.hook_event_name : null,
      agentSessionId: typeof event.session_id === 'string' ? event.session_id : null,
      code: WaypointError.is(error) ? error.code : error instanceof SyntaxError ? 'INVALID_HOOK_INPUT' : 'INTERNAL',
      message: error instanceof Error ? error.message : String(error),
    });
  }
}
