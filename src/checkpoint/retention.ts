import { InvalidArgumentError, type Session } from '../model/index.js';
import { collectGarbage, type GcReport } from '../blobs/index.js';
import { subagentLink } from '../history/index.js';
import type { Store } from '../store/store.js';

export interface TrimSessionsOptions {
  /**
   * Keep the newest N sessions (by creation time); older ones are deleted. 0 disables trimming.
   * Subagent transcript sessions are not counted: they belong to the
   * session whose tool call ran them, are kept with it and deleted with it.
   */
  keepSessions: number;
  /** Report what would be removed without deleting anything. */
  dryRun?: boolean;
}

/** A session in a retention report. */
export type RetainedSessionSummary = Pick<Session, 'id' | 'title' | 'createdAt'>;

/** A session retention deleted (or would), with the subagent transcript sessions that went with it. */
export interface RemovedSession extends RetainedSessionSummary {
  /** Its subagents' transcript sessions (and theirs, if a subagent ran one), oldest first. */
  subagentSessions: RetainedSessionSummary[];
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
 * Deletes subagent sessions before the sessions that ran them (deepest first), so an interrupted
 * run never leaves a subagent session without its parent.
 */
async function deleteInOrder(store: Store, sessions: readonly Session[]): Promise<void> {
  const depth = new Map<string, number>();
  const ids = new Set(sessions.map((session) => session.id));
  const byId = new Map(sessions.map((session) => [session.id, session]));
  const depthOf = (session: Session, guard = 0): number => {
    const link = subagentLink(session);
    const parent = link && ids.has(link.parentSessionId) ? byId.get(link.parentSessionId)! : null;
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
 * Session retention: deletes the oldest sessions beyond `keepSessions` (with their entries,
 * turns, checkpoints and pins; messages a kept fork still needs stay), then sweeps blobs nothing
 * references any more. The sweep is safe beside writers in any process (see `collectGarbage`):
 * what a write in flight pins, or a kept session refers to, is never swept. A session deleted
 * here while another process still writes to it makes that writer's next record fail with
 * `SESSION_NOT_FOUND`.
 *
 * Subagent transcript sessions are not sessions of their own here: they are not counted, and they
 * go with the session whose tool call ran them (subagents first, so none is ever left without its
 * parent). Subagent sessions whose parent is already gone are deleted too.
 *
 * @example
 * const report = await trimSessions(store, { keepSessions: 20 })
 * console.log(`${report.removedSessions.length} sessions, ${report.freedBytes} bytes freed`)
 */
export async function trimSessions(store: Store, options: TrimSessionsOptions): Promise<TrimSessionsReport> {
  const keep = options.keepSessions;
  if (!Number.isInteger(keep) || keep < 0) {
    throw new InvalidArgumentError({ parameter: 'keepSessions', value: keep, reason: 'must be a whole number ≥ 0 (0 turns trimming off).' });
  }
  const dryRun = options.dryRun ?? false;
  const all = (await store.listSessions()).sort(byAge);
  const owners = subagentOwners(all);
  const sessions = all.filter((session) => !owners.has(session.id));
  const doomed = keep === 0 ? [] : sessions.slice(0, Math.max(0, sessions.length - keep));
  const doomedIds = new Set(doomed.map((session) => session.id));
  const subagentsOf = new Map<string, Session[]>();
  const orphans: Session[] = [];
  if (keep !== 0) {
    for (const session of all) {
      if (!owners.has(session.id)) continue;
      const owner = owners.get(session.id)!;
      if (owner === null) orphans.push(session);
      else if (doomedIds.has(owner)) subagentsOf.set(owner, [...(subagentsOf.get(owner) ?? []), session]);
    }
  }
  if (!dryRun) {
    await deleteInOrder(store, orphans);
    for (const session of doomed) await deleteInOrder(store, [session, ...(subagentsOf.get(session.id) ?? [])]);
  }
  const gc = await collectGarbage(store, { dryRun });
  return {
    dryRun,
    removedSessions: doomed.map((session) => ({ ...summary(session), subagentSessions: (subagentsOf.get(session.id) ?? []).map(summary) })),
    orphanSubagentSessions: orphans.map(summary),
    keptSessions: sessions.length - doomed.length,
    gc,
    freedBytes: gc.freedBytes,
  };
}
