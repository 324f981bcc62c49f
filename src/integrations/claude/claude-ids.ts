import { derivedId } from '../agent-ids.js';
const CLAUDE_SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` has the shape of a Claude Code or Codex CLI session id (a UUID). */
export function isClaudeSessionId(value: string): boolean {
  return CLAUDE_SESSION_ID.test(value);
}

/**
 * The Waypoint session that records a Claude Code (or Codex CLI) session: derived from the agent's id, so every
 * hook process of that session finds it without a lookup and two processes starting it at once
 * create one session, and any command given the Claude id can name it.
 *
 * @example waypointSessionIdFor('ff08b977-7efa-495c-b653-9d27a3bdaeab') // 'ses_…' (always the same)
 */
export function waypointSessionIdFor(claudeSessionId: string): string {
  return derivedId('ses', `claude-session:${claudeSessionId.toLowerCase()}`);
}

/** The id of the message mirroring one transcript entry (so mirroring it twice is detected). */
export function mirroredMessageId(sessionId: string, uuid: string): string {
  return derivedId('msg', `claude-entry:${sessionId}:${uuid}`);
}
