import type { Waypoint } from '../../engine/index.js';
import { subagentLink, type SubagentLink } from '../../history/index.js';
import type { SessionKind } from '../../model/index.js';

/** One row of `waypoint sessions`. */
export interface SessionRow {
  id: string;
  /** The stored kind (a subagent's transcript session is stored as a `fork`; see `subagent`). */
  kind: SessionKind;
  /**
   * For a subagent's transcript session: the parent session, turn and tool call that ran it (the
   * table's KIND column says `subagent`). Null for every other session.
   */
  subagent: SubagentLink | null;
  title: string;
  parentSessionId: string | null;
  workdir: string | null;
  createdAt: number;
  headMessageId: string | null;
  /** Messages on the active path. */
  messages: number;
  turns: number;
}

/** Every session of the store, oldest first (the newest `limit` when given). */
export async function listSessionRows(waypoint: Waypoint, options: { limit?: number } = {}): Promise<SessionRow[]> {
  const { store } = waypoint;
  let sessions = (await store.listSessions()).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  if (options.limit !== undefined) sessions = sessions.slice(-options.limit);
  const rows: SessionRow[] = [];
  for (const session of sessions) {
    const [turns, head] = await Promise.all([
      store.listTurns(session.id),
      session.headMessageId === null ? Promise.resolve(null) : store.findMessage(session.headMessageId),
    ]);
    rows.push({
      id: session.id,
      kind: session.kind,
      subagent: subagentLink(session),
      title: session.title,
      parentSessionId: session.parentSessionId,
      workdir: session.workdir,
      createdAt: session.createdAt,
      headMessageId: session.headMessageId,
      messages: head === null ? 0 : head.depth + 1,
      turns: turns.length,
    });
  }
  return rows;
}

/** What a person calls a session's kind: `subagent` for a subagent's transcript (stored as a fork), else its stored kind. */
export function sessionKindLabel(row: Pick<SessionRow, 'kind' | 'subagent'>): string {
  return row.subagent ? 'subagent' : row.kind;
}
