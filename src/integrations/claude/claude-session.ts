import type { Waypoint } from '../../engine/index.js';
import type { Session } from '../../model/index.js';
import { startTurn } from '../../runtime/external-turn.js';
import { endRunningTurns, isRunning, titleOf } from '../agent-turns.js';
import { waypointSessionIdFor } from './claude-ids.js';
import type { ClaudeHookEvent } from './hook-event.js';
import type { HookState } from '../hook-state.js';

const DEFAULT_TITLE = 'Claude Code session';

/**
 * The Waypoint session recording the event's Claude session, created on its first event with the
 * event's directory as workdir. Its metadata names the Claude session (`claudeSessionId`) and
 * transcript, so a person can find one from the other.
 */
export async function ensureClaudeSession(waypoint: Waypoint, event: ClaudeHookEvent): Promise<Session> {
  const id = waypointSessionIdFor(event.session_id);
  const found = await waypoint.store.findSession(id);
  if (found) return found;
  return waypoint.store.createSession({
    id,
    workdir: event.cwd,
    title: DEFAULT_TITLE,
    metadata: { agent: 'claude-code', claudeSessionId: event.session_id, ...(event.transcript_path ? { transcriptPath: event.transcript_path } : {}) },
  });
}

/**
 * Starts the turn of a person's prompt: ends a turn still running first (Claude sends no Stop for
 * an interrupted prompt), then records the prompt as the turn's input, the target an undo picks.
 */
export async function startPromptTurn(
  waypoint: Waypoint,
  session: Session,
  state: HookState,
  promptId: string,
  prompt: string,
  inputKind: 'input' | 'task_notification' = 'input',
): Promise<string> {
  const known = state.turns[promptId];
  if (known !== undefined) return known;
  await endRunningTurns(waypoint, session.id, 'interrupted');
  const input = prompt.trim() === '' ? '(empty prompt)' : prompt;
  const turn = await startTurn({ waypoint, sessionId: session.id, input, inputKind, metadata: { agent: 'claude-code', claudePromptId: promptId } });
  state.turns[promptId] = turn.turnId;
  if (session.title === DEFAULT_TITLE && inputKind === 'input') await waypoint.store.setTitle(session.id, titleOf(input));
  return turn.turnId;
}

/**
 * The running turn an event belongs to: its prompt's turn (subagents' calls carry their parent's
 * prompt id, so they land in the same turn), else the session's running turn, else a new turn
 * for a prompt the handler never saw (the hooks were installed mid-session).
 */
export async function turnForEvent(waypoint: Waypoint, session: Session, state: HookState, event: ClaudeHookEvent): Promise<string> {
  const byPrompt = event.prompt_id === undefined ? undefined : state.turns[event.prompt_id];
  if (byPrompt !== undefined && (await isRunning(waypoint, byPrompt))) return byPrompt;
  const [running] = await waypoint.store.listTurns(session.id, { status: 'running' });
  if (running) return running.id;
  const promptId = event.prompt_id ?? `unknown-${Date.now()}`;
  return startPromptTurn(waypoint, session, state, promptId, '(a Claude Code prompt sent before Waypoint recorded the session)');
}
