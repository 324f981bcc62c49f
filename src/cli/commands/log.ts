import type { Waypoint } from '../../engine/index.js';
import { renderFamilyTree, sessionFamily, type FamilyNode } from '../../fork/index.js';
import { defineCommand, withWaypoint } from '../command.js';

export interface LogReport {
  sessionId: string;
  rootSessionId: string;
  /** The family as a tree: each node's session, branch point (or subagent link), turns, change count and children. */
  family: FamilyNode;
}

/** The family of a session (every session sharing its root), as a tree rooted at the root session. */
export async function sessionLog(waypoint: Waypoint, sessionId: string): Promise<LogReport> {
  const family = await sessionFamily(waypoint.store, sessionId);
  return { sessionId, rootSessionId: family.session.id, family };
}

export function renderLog(report: LogReport): string[] {
  return renderFamilyTree(report.family, { mark: report.sessionId }).split('\n');
}

export const logCommand = defineCommand({
  name: 'log',
  synopsis: ['log <session>'],
  summary:
    "the session's family as a tree: forks and side chats, where each branched, turns and file changes; subagent transcripts under the turn that ran them",
  description: [
    "`#n` is the branch point's position in the conversation; `← here` marks the session asked for.",
    "A subagent's transcript session is shown as `subagent: \"<description>\"` under its parent, with the parent's turn and tool call that ran it and how it ended (its file changes are that turn's).",
  ],
  flags: {},
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const report = await withWaypoint(context, (waypoint) => sessionLog(waypoint, args.positionals[0]!));
    return { data: report, text: renderLog(report) };
  },
});
