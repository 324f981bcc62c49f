import { InvalidArgumentError, type Session } from '../model/index.js';
import { collectGarbage, type GcReport } from '../blobs/index.js';
import { subagentLink } from '../history/index.js';
import type { Store } from '../store/store.js';

export interface TrimSessionsOptions {
  /**
   * Keep the N session families with the latest activity; the others are deleted whole. A
   * family is a main session with everything that branched from it — forks, side chats, their
   * forks — and the subagent transcripts any of them ran; its last activity is the latest
   * `updatedAt` of any member. 0 disables trimming.
   */
  keepSessions: number;
  /** Report what would be removed without deleting anything. */
  dryRun?: boolean;
  /**
   * Delete only these sessions (what a person confirmed): a family, or an orphan, with any
   * member not listed is kept whole, and shown in neither list.
   */
  only?: readonly string[];
}

/** A session in a retention report. */
export type RetainedSessionSummary = Pick<Session, 'id' | 'title' | 'createdAt'>;

/** A session retention deleted (or would), with the subagent transcript sessions that went with it. */
export interface RemovedSession extends RetainedSessionSummary {
  /** Its subagents' transcript sessions (and theirs, if a subagent ran one), oldest first. */
  subagentSessions: RetainedSessionSummary[];
  kind: Session['kind'];
  /** The family's oldest session (its main session, when that still exists). */
  familyId: string;
  /** The family's last activity (ms since the epoch): what retention ranks families by. */
  familyLastActivityAt: number;
}

export interface TrimSessionsReport {
  dryRun: boolean;
  /** Sessions deleted (or that would be), oldest first; subagent sessions only inside their parent's entry. */
  removedSessions: RemovedSession[];
  /**
   * Subagent transcript sessions whose parent session no longer exists (deleted before retention
   * knew about subagents, or directly through the store): deleted (or that would be) too.
   */
  orphanSubagentSessions: RetainedSessionSummary[];
  /** Sessions kept, not counting subagent sessions. */
  keptSessions: number;
  /** Session families kept. */
  keptFamilies: number;
  /**
   * The blob collection that followed. In a dry run the sessions still exist, so it shows what is
   * unreachable already: a lower bound of what a real run frees.
   */
  gc: GcReport;
  /** Stored blob bytes freed (or, in a dry run, at least this many would be). */
  freedBytes: number;
}

/** What {@link deleteSessionWithSubagents} deleted (or would). */
export interface DeleteSessionReport {
  dryRun: boolean;
  session: RetainedSessionSummary;
  /** The subagent transcript sessions that went with it, oldest first. */
  subagentSessions: RetainedSessionSummary[];
}

const byAge = (a: Session, b: Session): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const summary = (session: Session): RetainedSessionSummary => ({ id: session.id, title: session.title, createdAt: session.createdAt });

/**
 * Who owns each subagent session of `sessions`: the nearest non-subagent session up its chain of
 * subagent links, or null when that chain reaches a session that no longer exists (an orphan).
 */
function subagentOwners(sessions: readonly Session[]): Map<string, string | null> {
  const byId = new Map(sessions.map((session) => [session.id, session]));
  const owners = new Map<string, string | null>();
  const ownerOf = (session: Session, seen: Set<string>): string | null => {
    const link = subagentLink(session);
    if (!link) return session.id;
    if (owners.has(session.id)) return owners.get(session.id)!;
    const parent = byId.get(link.parentSessionId);
    const owner = !parent || seen.has(parent.id) ? null : ownerOf(parent, seen.add(session.id));
    owners.set(session.id, owner);
    return owner;
  };
  for (const session of sessions) if (subagentLink(session)) ownerOf(session, new Set());
  return owners;
}

/**
 * Deletes subagent sessions before the sessions that ran them, and forks before the sessions they
 * branched from (deepest first), so an interrupted run never leaves a session without its parent.
 */
async function deleteInOrder(store: Store, sessions: readonly Session[]): Promise<void> {
  const depth = new Map<string, number>();
  const ids = new Set(sessions.map((session) => session.id));
  const byId = new Map(sessions.map((session) => [session.id, session]));
  const depthOf = (session: Session, guard = 0): number => {
    const parentId = subagentLink(session)?.parentSessionId ?? session.parentSessionId;
    const parent = parentId !== null && ids.has(parentId) ? byId.get(parentId)! : null;
    return parent && guard < sessions.length ? depthOf(parent, guard + 1) + 1 : 0;
  };
  for (const session of sessions) depth.set(session.id, depthOf(session));
  const ordered = [...sessions].sort((a, b) => depth.get(b.id)! - depth.get(a.id)! || byAge(a, b));
  for (const session of ordered) await store.deleteSession(session.id);
}

/**
 * Deletes a session together with the transcript sessions of the subagents it ran (with their
 * entries, turns and checkpoints, if any; messages a remaining session still needs stay). A
 * subagent session is never left behind without the session whose tool call it belongs to.
 * Forks and side chats of the session are independent sessions and are kept. Blobs only the
 * deleted sessions referenced are freed by the next `collectGarbage` (or {@link trimSessions}).
 *
 * @example
 * const { subagentSessions } = await deleteSessionWithSubagents(store, sessionId)
 * await collectGarbage(store)
 */
export async function deleteSessionWithSubagents(store: Store, sessionId: string, options: { dryRun?: boolean } = {}): Promise<DeleteSessionReport> {
  const session = await store.getSession(sessionId);
  const tree = await store.listSessions({ treeId: session.treeId });
  // Subagent sessions start empty in their parent's tree: follow the links down from the session.
  const doomed = new Set([session.id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const candidate of tree) {
      const link = subagentLink(candidate);
      if (link && !doomed.has(candidate.id) && doomed.has(link.parentSessionId)) {
        doomed.add(candidate.id);
        grew = true;
      }
    }
  }
  const subagents = tree.filter((candidate) => candidate.id !== session.id && doomed.has(candidate.id)).sort(byAge);
  const dryRun = options.dryRun ?? false;
  if (!dryRun) await deleteInOrder(store, [session, ...subagents]);
  return { dryRun, session: summary(session), subagentSessions: subagents.map(summary) };
}

/**
 * Session retention by family: keeps the `keepSessions` families with the latest activity and
 * deletes every other family whole (with entries, turns, checkpoints and pins; messages a kept
 * session still needs stay), then sweeps blobs nothing references any more. A family is a main
 * session, every session that branched from it (forks, side chats, their forks) and the subagent
 * transcripts any of them ran, so a session is never deleted while something branched from it is
 * kept, and a busy fork keeps its quiet parent. Deletion runs deepest first. Subagent sessions
 * whose parent is already gone (orphans) are deleted too. The sweep is safe beside writers in any
 * process (see `collectGarbage`). A session deleted here while another process still writes to it
 * makes that writer's next record fail with `SESSION_NOT_FOUND`.
 *
 * @example
 * const report = await trimSessions(store, { keepSessions: 20 })
 * console.log(`${report.removedSessions.length} sessions, ${report.freedBytes} bytes freed`)
 */
export async function trimSessions(store: Store, options: TrimSessionsOptions): Promise<TrimSessionsReport> {
  const dryRun = options.dryRun ?? false;
  const plan = await planTrim(store, options);
  if (!dryRun) {
    await deleteInOrder(store, plan.orphans);
    for (const family of plan.doomed) await deleteInOrder(store, family.members);
  }
  const gc = await collectGarbage(store, { dryRun });
  return { dryRun, ...plan.report, gc, freedBytes: gc.freedBytes };
}

/** What {@link trimSessions} with the same options would delete, without deleting or sweeping anything. */
export async function planSessionTrim(store: Store, options: Omit<TrimSessionsOptions, 'dryRun'>): Promise<SessionTrimPlan> {
  return (await planTrim(store, options)).report;
}

/** The sessions a trim deletes and what it keeps (a {@link TrimSessionsReport} without the sweep). */
export type SessionTrimPlan = Pick<TrimSessionsReport, 'removedSessions' | 'orphanSubagentSessions' | 'keptSessions' | 'keptFamilies'>;

async function planTrim(
  store: Store,
  options: Omit<TrimSessionsOptions, 'dryRun'>,
): Promise<{ report: SessionTrimPlan; doomed: SessionFamily[]; orphans: Session[] }> {
  const keep = options.keepSessions;
  if (!Number.isInteger(keep) || keep < 0) {
    throw new InvalidArgumentError({ parameter: 'keepSessions', value: keep, reason: 'must be a whole number ≥ 0 (0 turns trimming off).' });
  }
  const all = (await store.listSessions()).sort(byAge);
  const owners = subagentOwners(all);
  const families = keep === 0 ? [] : sessionFamilies(all, owners);
  const only = options.only ? new Set(options.only) : null;
  const allowed = (members: readonly Session[]) => only === null || members.every((member) => only.has(member.id));
  const doomed = families.slice(keep).filter((family) => allowed(family.members));
  const orphans = keep === 0 ? [] : all.filter((session) => owners.get(session.id) === null && allowed([session]));
  const removedSessions = [...doomed].reverse().flatMap((family) =>
    family.members
      .filter((member) => !owners.has(member.id))
      .map((member) => ({
        ...summary(member),
        kind: member.kind,
        subagentSessions: family.members.filter((sub) => owners.get(sub.id) === member.id).map(summary),
        familyId: family.id,
        familyLastActivityAt: family.lastActivityAt,
      })),
  );
  const sessions = all.filter((session) => !owners.has(session.id));
  return {
    report: {
      removedSessions,
      orphanSubagentSessions: orphans.map(summary),
      keptSessions: sessions.length - removedSessions.length,
      keptFamilies: families.length - doomed.length,
    },
    doomed,
    orphans,
  };
}

interface SessionFamily {
  id: string;
  /** Oldest first; subagent transcripts included. */
  members: Session[];
  lastActivityAt: number;
}

/**
 * The store's session families, latest activity first: sessions joined by their fork parent and
 * root trace (so a family whose main session is gone still holds together), each subagent
 * transcript with the session that owns it. Orphan subagent sessions belong to none.
 */
function sessionFamilies(all: readonly Session[], owners: ReadonlyMap<string, string | null>): SessionFamily[] {
  const up = new Map<string, string>();
  const find = (id: string): string => {
    let at = id;
    while (up.has(at) && up.get(at) !== at) at = up.get(at)!;
    return at;
  };
  const join = (a: string, b: string) => {
    const [x, y] = [find(a), find(b)];
    if (x !== y) up.set(y, x);
  };
  const present = new Set(all.map((session) => session.id));
  for (const session of all) {
    if (owners.has(session.id)) continue;
    up.set(session.id, up.get(session.id) ?? session.id);
    for (const other of [session.parentSessionId, session.rootSessionId])
      if (other !== null && present.has(other) && !owners.has(other)) join(other, session.id);
  }
  const grouped = new Map<string, Session[]>();
  for (const session of all) {
    const owner = owners.has(session.id) ? owners.get(session.id)! : session.id;
    if (owner === null) continue;
    const key = find(owner);
    grouped.set(key, [...(grouped.get(key) ?? []), session]);
  }
  return [...grouped.values()]
    .map((members) => ({ id: members[0]!.id, members, lastActivityAt: Math.max(...members.map((member) => member.updatedAt)) }))
    .sort((a, b) => b.lastActivityAt - a.lastActivityAt || (a.id < b.id ? 1 : -1));
}
