import type { Session } from '../model/index.js';

/**
 * Metadata key of a subagent's transcript session (and of its turn and prompt message). The
 * runtime writes it; retention, lineage and the CLI read it through {@link subagentLink}, so they
 * can tell a subagent transcript from a fork without importing the runtime.
 */
export const SUBAGENT_METADATA = 'subagent';

/** Where a subagent session came from: the parent session, turn and tool call that ran it. */
export interface SubagentLink {
  parentSessionId: string;
  parentTurnId: string;
  toolCallId: string;
  description: string | null;
}

/** The link of a session created for a subagent's transcript, or null for any other session. */
export function subagentLink(session: Pick<Session, 'metadata'>): SubagentLink | null {
  const value = session.metadata[SUBAGENT_METADATA];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const { parentSessionId, parentTurnId, toolCallId, description } = value;
  if (typeof parentSessionId !== 'string' || typeof parentTurnId !== 'string' || typeof toolCallId !== 'string') return null;
  return { parentSessionId, parentTurnId, toolCallId, description: typeof description === 'string' ? description : null };
}
