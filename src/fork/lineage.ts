import { subagentLink, type SubagentLink } from '../history/index.js';
import type { Session, TurnStatus } from '../model/index.js';
import type { Store } from '../store/store.js';

/** Sessions forked directly from `sessionId`, oldest first. */
export async function listChildren(store: Store, sessionId: string): Promise<Session[]> {
  await store.getSession(sessionId);
  return store.listSessions({ parentSessionId: sessionId });
}

/** The parent, grandparent … up to the family's root session, nearest first. */
export async function listAncestors(store: Store, sessionId: string): Promise<Session[]> {
  const ancestors: Session[] = [];
  let current = await store.getSession(sessionId);
  const seen = new Set([current.id]);
  while (current.parentSessionId !== null && !seen.has(current.parentSessionId)) {
    const parent = await store.findSession(current.parentSessionId);
    if (!parent) break; // deleted parent: the trace stops there
    ancestors.push(parent);
    seen.add(parent.id);
    current = parent;
  }
  return ancestors;
}

/** One session of a family tree, with what the CLI `log` shows about it. */
export interface FamilyNode {
  session: Session;
  /** Where it branched off its parent (null for the root). */
  branchPoint: { messageId: string | null; depth: number | null } | null;
  /**
   * For a subagent's transcript session: the parent session, turn and tool call that ran it (it
   * hangs under that parent; it is not a fork a person made), and that turn's number in the
   * parent (1 = its first turn; null when the turn is not found). Null for every other session.
   */
  subagent: (SubagentLink & { turnNumber: number | null }) | null;
  /** Status of its last turn, null when it has none (for a subagent: how its run ended). */
  lastTurnStatus: TurnStatus | null;
  turns: number;
  /** File changes (checkpoints) the session recorded. */
  changes: number;
  children: FamilyNode[];
}

/**
 * The whole family of a session — every session sharing its root trace — as a tree rooted at the
 * root session. Children whose parent was deleted hang under the root. A subagent's transcript
 * session hangs under the session whose tool call ran it, marked with its `subagent` link.
 */
export async function sessionFamily(store: Store, sessionId: string): Promise<FamilyNode> {
  const session = await store.getSession(sessionId);
  const members = await store.listSessions({ rootSessionId: session.rootSessionId });
  if (!members.some((member) => member.id === session.rootSessionId)) {
    const root = await store.findSession(session.rootSessionId);
    if (root) members.unshift(root);
  }
  const nodes = new Map<string, FamilyNode>();
  const turnIds = new Map<string, string[]>();
  for (const member of members) {
    const [turns, checkpoints, forkedAt] = await Promise.all([
      store.listTurns(member.id),
      store.listCheckpoints(member.id),
      member.forkedFromMessageId === null ? Promise.resolve(null) : store.findMessage(member.forkedFromMessageId),
    ]);
    turnIds.set(
      member.id,
      turns.map((turn) => turn.id),
    );
    const link = subagentLink(member);
    nodes.set(member.id, {
      session: member,
      branchPoint: member.parentSessionId === null ? null : { messageId: member.forkedFromMessageId, depth: forkedAt?.depth ?? null },
      subagent: link && { ...link, turnNumber: null },
      lastTurnStatus: turns.at(-1)?.status ?? null,
      turns: turns.length,
      changes: checkpoints.length,
      children: [],
    });
  }
  const root = nodes.get(session.rootSessionId) ?? nodes.get(session.id)!;
  for (const node of nodes.values()) {
    if (node.subagent) {
      const index = turnIds.get(node.subagent.parentSessionId)?.indexOf(node.subagent.parentTurnId) ?? -1;
      node.subagent.turnNumber = index < 0 ? null : index + 1;
    }
    if (node === root) continue;
    const parentId = node.subagent?.parentSessionId ?? node.session.parentSessionId;
    const parent = (parentId !== null && nodes.get(parentId)) || root;
    parent.children.push(node);
  }
  for (const node of nodes.values()) node.children.sort((a, b) => a.session.createdAt - b.session.createdAt || (a.session.id < b.session.id ? -1 : 1));
  return root;
}

/**
 * The family tree as plain text, one session a line (what `waypoint log` prints):
 *
 * ```
 * main  "Fix the parser"  ses_01…  3 turns, 5 changes
 * ├─ fork  "Fork of Fix the parser"  ses_01…  at msg_01… (#4)  1 turn, 0 changes
 * │  └─ side_chat  "Selection side chat"  ses_01…  at msg_01… (#7)  0 turns, 0 changes
 * ├─ subagent: "find the callers"  ses_01…  of turn 3 (turn_01…, tool call call_7)  complete
 * └─ fork  "plan-b"  ses_01…  at msg_01… (#2)  2 turns, 1 change
 * ```
 * `#n` is the branch point's position in the conversation (1 = first message). A subagent's
 * transcript shows its description (else its title), the parent's turn (its number and id) and tool
 * call that ran it, and how its run ended; its file changes are the parent turn's, so a count is shown only if it has
 * checkpoints of its own.
 */
export function renderFamilyTree(root: FamilyNode, options: { mark?: string } = {}): string {
  const lines: string[] = [];
  const describe = (node: FamilyNode): string => {
    const { session } = node;
    if (node.subagent) {
      const { description, parentTurnId, toolCallId, turnNumber } = node.subagent;
      const title = description ?? session.title.replace(/^Subagent: /, '');
      const parts = [
        `subagent: ${JSON.stringify(title)}`,
        session.id,
        turnNumber === null ? `of ${parentTurnId} (tool call ${toolCallId})` : `of turn ${turnNumber} (${parentTurnId}, tool call ${toolCallId})`,
      ];
      if (node.lastTurnStatus !== null) parts.push(node.lastTurnStatus);
      if (node.changes > 0) parts.push(`${node.changes} ${node.changes === 1 ? 'change' : 'changes'}`);
      return parts.join('  ') + (options.mark === session.id ? '  ← here' : '');
    }
    const parts = [session.kind, JSON.stringify(session.title), session.id];
    if (node.branchPoint)
      parts.push(
        node.branchPoint.messageId === null
          ? 'at the start'
          : `at ${node.branchPoint.messageId}${node.branchPoint.depth === null ? '' : ` (#${node.branchPoint.depth + 1})`}`,
      );
    parts.push(`${node.turns} ${node.turns === 1 ? 'turn' : 'turns'}, ${node.changes} ${node.changes === 1 ? 'change' : 'changes'}`);
    return parts.join('  ') + (options.mark === session.id ? '  ← here' : '');
  };
  const walk = (node: FamilyNode, prefix: string, last: boolean, top: boolean): void => {
    lines.push(top ? describe(node) : `${prefix}${last ? '└─ ' : '├─ '}${describe(node)}`);
    const childPrefix = top ? '' : `${prefix}${last ? '   ' : '│  '}`;
    for (const [index, child] of node.children.entries()) walk(child, childPrefix, index === node.children.length - 1, false);
  };
  walk(root, '', true, true);
  return lines.join('\n');
}
