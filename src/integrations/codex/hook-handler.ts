import { openCaptureContext, type CaptureContext, compactScanState } from '../../checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../engine/index.js';
import { parseInput, WaypointError, type Session } from '../../model/index.js';
import type { ScanIo } from '../../workspace/index.js';
import { startTurn } from '../../runtime/external-turn.js';
import { endRunningTurns, isRunning, recordFinalReply, runningTurn, titleOf } from '../agent-turns.js';
import { waypointSessionIdFor } from '../claude/claude-ids.js';
import { logHookFailure } from '../hook-log.js';
import { sessionLockPath, sessionStatePath } from '../hook-paths.js';
import { loadHookState, saveHookState, type HookState } from '../hook-state.js';
import { withPathLock } from '../session-lock.js';
import { afterTool, beforeTool, closeOpenCalls, closeScanWindow, type ToolCoverage } from '../tool-capture.js';
import { patchedFiles, patchedPaths } from './apply-patch.js';
import { CodexHookEvent } from './hook-event.js';
import { mirrorRollout } from './rollout-mirror.js';

const DEFAULT_TITLE = 'Codex session';

export interface CodexHookOptions {
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
 * Records one Codex CLI hook event in the session it belongs to (see the README's "Use it with
 * Codex CLI"): a prompt starts a turn (Codex's `turn_id`), an `apply_patch` call becomes a `tool`
 * checkpoint for each file its patch adds, updates, moves or deletes, with before and after; a shell
 * command (and an MCP tool) is scanned before and after; Stop ends the turn on Codex's reply; the
 * conversation in Codex's rollout (replies, tool calls and their outputs) is mirrored at each event. Events
 * of one Codex session are handled one at a time (a lock beside the store). Throws on bad input or
 * a failure: see {@link runCodexHook} for the form that never does.
 */
export async function handleCodexHook(input: unknown, options: CodexHookOptions): Promise<void> {
  const event = parseInput(CodexHookEvent, input, 'Codex hook event');
  const sessionId = waypointSessionIdFor(event.session_id);
  const lockPath = sessionLockPath(options.storePath, sessionId, 'codex');
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  await withPathLock(lockPath, lockTimeoutMs, async () => {
    const waypoint = options.waypoint ?? (await openWaypoint({ path: options.location ?? options.storePath }));
    try {
      const session = await ensureCodexSession(waypoint, event);
      const statePath = sessionStatePath(options.storePath, session.id, 'codex');
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

async function dispatch(waypoint: Waypoint, session: Session, state: HookState, event: CodexHookEvent, scanIo: Partial<ScanIo> | undefined): Promise<void> {
  const name = event.hook_event_name;
  const open = async (turnId: string): Promise<CaptureContext> => {
    const context = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId });
    return scanIo === undefined ? context : { ...context, scanIo };
  };
  const mirror = (turnId: string | null) => mirrorRollout(waypoint, session.id, state, event.transcript_path, turnId);
  if (name === 'UserPromptSubmit') {
    await closeScanWindow(open, state);
    // What the rollout holds of earlier turns lands before this prompt.
    await mirror(await runningTurn(waypoint, session.id));
    await startCodexTurn(waypoint, session, state, event.turn_id ?? `prompt-${Date.now()}`, event.prompt ?? '');
    return;
  }
  if (name === 'PreToolUse' || name === 'PostToolUse') {
    const turnId = await turnForEvent(waypoint, session, state, event);
    await mirror(turnId);
    const context = await open(turnId);
    if (name === 'PreToolUse') await beforeTool(context, state, event, codexCoverage(event));
    else await afterTool(context, state, event);
    return;
  }
  const turnId = await runningTurn(waypoint, session.id);
  await mirror(turnId);
  if (name !== 'Stop' && name !== 'SessionEnd') return;
  if (turnId !== null) {
    await closeOpenCalls(await open(turnId), state, { final: true });
    const reply = name === 'Stop' ? event.last_assistant_message : null;
    await noteStopReply(waypoint, session.id, state, turnId, reply);
    await endRunningTurns(waypoint, session.id, await recordFinalReply(waypoint, session.id, turnId, reply, 'codex-stop-event'));
  }
  await closeScanWindow(open, state);
}

/** Codex's final reply that the rollout does not hold yet is recorded from Stop: the rollout's copy, when it comes, is then not mirrored again. */
async function noteStopReply(waypoint: Waypoint, sessionId: string, state: HookState, turnId: string, reply: string | null | undefined): Promise<void> {
  if (typeof reply !== 'string' || reply.trim() === '') return;
  const [head] = await waypoint.store.history(sessionId, { last: 1, parts: 'none' });
  if (head?.role === 'assistant' && head.turnId === turnId) return;
  state.stopReplies = { ...state.stopReplies, [turnId]: reply };
}

/**
 * How a Codex tool call is recorded: `apply_patch` reads the files its patch names before and after
 * (a patch that cannot be read is scanned instead); everything else Codex reports to hooks — shell
 * commands (`Bash`) and MCP tools — is scanned.
 */
export function codexCoverage(event: CodexHookEvent): ToolCoverage {
  if (event.tool_name === 'apply_patch') {
    const patch = event.tool_input?.command ?? event.tool_input?.input ?? event.tool_input?.patch;
    const files = typeof patch === 'string' ? patchedFiles(patch) : null;
    if (files !== null) return { kind: 'files', paths: patchedPaths(files) };
  }
  return { kind: 'scan' };
}

/** The Waypoint session recording the Codex session, created on its first event with the event's directory as workdir. */
async function ensureCodexSession(waypoint: Waypoint, event: CodexHookEvent): Promise<Session> {
  const id = waypointSessionIdFor(event.session_id);
  const found = await waypoint.store.findSession(id);
  if (found) return found;
  return waypoint.store.createSession({
    id,
    workdir: event.cwd,
    title: DEFAULT_TITLE,
    metadata: { agent: 'codex', codexSessionId: event.session_id, ...(event.transcript_path ? { transcriptPath: event.transcript_path } : {}) },
  });
}

/** Starts the turn of a person's prompt (a turn still running, one Codex never sent Stop for, ends interrupted first). */
async function startCodexTurn(waypoint: Waypoint, session: Session, state: HookState, codexTurnId: string, prompt: string): Promise<string> {
  const known = state.turns[codexTurnId];
  if (known !== undefined) return known;
  await endRunningTurns(waypoint, session.id, 'interrupted');
  const input = prompt.trim() === '' ? '(empty prompt)' : prompt;
  const turn = await startTurn({ waypoint, sessionId: session.id, input, metadata: { agent: 'codex', codexTurnId } });
  state.turns[codexTurnId] = turn.turnId;
  if (session.title === DEFAULT_TITLE) await waypoint.store.setTitle(session.id, titleOf(input));
  return turn.turnId;
}

/** The running turn a tool event belongs to: its Codex turn's, else the running one, else a new one (hooks installed mid-session). */
async function turnForEvent(waypoint: Waypoint, session: Session, state: HookState, event: CodexHookEvent): Promise<string> {
  const byTurn = event.turn_id === undefined ? undefined : state.turns[event.turn_id];
  if (byTurn !== undefined && (await isRunning(waypoint, byTurn))) return byTurn;
  const running = await runningTurn(waypoint, session.id);
  if (running !== null) return running;
  return startCodexTurn(waypoint, session, state, event.turn_id ?? `unknown-${Date.now()}`, '(a Codex prompt sent before Waypoint recorded the session)');
}

/**
 * The hook command's body: handles the event in `stdin` and never fails Codex — a failure is
 * logged beside the store (`waypoint hooks status` shows it) and the process still exits 0.
 * Prints nothing (Codex reads a hook's stdout as its answer).
 */
export async function runCodexHook(stdin: string, options: CodexHookOptions): Promise<void> {
  let event: { hook_event_name?: unknown; session_id?: unknown } = {};
  try {
    event = JSON.parse(stdin) as typeof event;
    await handleCodexHook(event, options);
  } catch (error) {
    logHookFailure(
      options.storePath,
      {
        event: typeof event.hook_event_name === 'string' ? event.hook_event_name : null,
        agentSessionId: typeof event.session_id === 'string' ? event.session_id : null,
        code: WaypointError.is(error) ? error.code : error instanceof SyntaxError ? 'INVALID_HOOK_INPUT' : 'INTERNAL',
        message: error instanceof Error ? error.message : String(error),
      },
      'codex',
    );
  }
}
