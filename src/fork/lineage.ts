import type { Session } from '../model/index.js';
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
  turns: number;
  /** File changes (checkpoints) the session recorded. */
  changes: number;
  children: FamilyNode[];
}

/**
 * The whole family of a session — every session sharing its root trace — as a tree rooted at the
 * root session. Children whose parent was deleted hang under the root.
 */
export async function sessionFamily(store: Store, sessionId: string): Promise<FamilyNode> {
  const session = await store.getSession(sessionId);
  const members = await store.listSessions({ rootSessionId: session.rootSessionId });
  if (!members.some((member) => member.id === session.rootSessionId)) {
    const root = await store.findSession(session.rootSessionId);
    if (root) members.unshift(root);
  }
  const nodes = new Map<string, FamilyNode>();
  for (const member of members) {
    const [turns, checkpoints, forkedAt] = await Promise.all([
      store.listTurns(member.id),
      store.listCheckpoints(member.id),
      member.forkedFromMessageId === null ? Promise.resolve(null) : store.findMessage(member.forkedFromMessageId),
    ]);
    nodes.set(member.id, {
      session: member,
      branchPoint: member.parentSessionId === null ? null : { messageId: member.forkedFromMessageId, depth: forkedAt?.depth ?? null },
      turns: turns.length,
      changes: checkpoints.length,
      children: [],
    });
  }
  const root = nodes.get(session.rootSessionId) ?? nodes.get(session.id)!;
  for (const node of nodes.values()) {
    if (node === root) continue;
    const parent = (node.session.parentSessionId !== null && nodes.get(node.session.parentSessionId)) || root;
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
 * └─ fork  "plan-b"  ses_01…  at msg_01… (#2)  2 turns, 1 change
 * ```
 * `#n` is the branch point's position in the conversation (1 = first message).
 */
export function renderFamilyTree(root: FamilyNode, options: { mark?: string } = {}): string {
  const lines: string[] = [];
  const describe = (node: FamilyNode): string => {
    const { session } = node;
    const parts = [session.kind, JSON.stringify(session.title), session.id];
    if (node.branchPoint) parts.push(node.branchPoint.messageId === null ? 'at the start' : `at ${node.branchPoint.messageId}${node.branchPoint.depth === null ? '' : ` (#${node.branchPoint.depth + 1})`}`);
    parts.push(`${node.turns} ${node.turns === 1 ? 'turn' : 'turns'}, ${node.changes} ${node.changes === 1 ? 'change' : 'changes'}`);
    return parts.join('  ') + (options.mark === session.id ? '  ← here' : '');
  };
  const walk = (node: FamilyNode, prefix: string, last: boolean, top: boolean): void => {
    lines.push(top ? describe(node) : `${prefix}${last ? '└─ ' : '├─ '}${describe(node)}`);
    const childPrefix = top ? '' : `${prefix}${last ? '   ' : '│  '}`;
    node.children.forEach((child, index) => walk(child, childPrefix, index === node.children.length - 1, false));
  };
  walk(root, '', true, true);
  return lines.join('\n');
}
