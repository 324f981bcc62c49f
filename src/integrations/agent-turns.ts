import type { Waypoint } from '../engine/index.js';
import type { Turn } from '../model/index.js';
import { endExternalTurn } from '../runtime/external-turn.js';

/** Ends every running turn of the session (an agent sends no Stop for an interrupted prompt). */
export async function endRunningTurns(waypoint: Waypoint, sessionId: string, status: 'complete' | 'interrupted'): Promise<Turn[]> {
  const ended: Turn[] = [];
  for (const turn of await waypoint.store.listTurns(sessionId, { status: 'running' })) {
    ended.push((await endExternalTurn(waypoint, sessionId, turn.id, { status })).turn);
  }
  return ended;
}

export async function isRunning(waypoint: Waypoint, turnId: string): Promise<boolean> {
  try {
    return (await waypoint.store.getTurn(turnId)).status === 'running';
  } catch {
    return false;
  }
}

/** The session's running turn, if any. */
export async function runningTurn(waypoint: Waypoint, sessionId: string): Promise<string | null> {
  const [running] = await waypoint.store.listTurns(sessionId, { status: 'running' });
  return running?.id ?? null;
}

/**
 * Makes sure the turn ends on the agent's reply, so it completes (its boundary needs one): when the
 * session's newest message is not already a reply of this turn, the reply the agent's Stop event
 * carries is recorded. A turn with no reply at all ends `interrupted`.
 */
export async function recordFinalReply(
  waypoint: Waypoint,
  sessionId: string,
  turnId: string,
  text: string | null | undefined,
  from: string,
): Promise<'complete' | 'interrupted'> {
  const [head] = await waypoint.store.history(sessionId, { last: 1, parts: 'none' });
  if (head?.role === 'assistant' && head.turnId === turnId) return 'complete';
  if (typeof text !== 'string' || text.trim() === '') return 'interrupted';
  await waypoint.store.appendMessage({ sessionId, role: 'assistant', kind: 'reply', parts: [{ type: 'text', text }], turnId, metadata: { from } });
  return 'complete';
}

/** A session title from a prompt: its first non-empty line, at most 60 characters. */
export function titleOf(input: string): string {
  const line = input.split('\n').find((text) => text.trim() !== '') ?? input;
  const chars = [...line.trim()];
  return chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : chars.join('');
}
