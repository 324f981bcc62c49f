import { InvalidArgumentError, type Session } from '../model/index.js';
import { collectGarbage, type GcReport } from '../blobs/index.js';
import type { Store } from '../store/store.js';

export interface TrimSessionsOptions {
  /** Keep the newest N sessions (by creation time); older ones are deleted. 0 disables trimming (seed 002's `keepSessions`). */
  keepSessions: number;
  /** Report what would be removed without deleting anything. */
  dryRun?: boolean;
}

export interface TrimSessionsReport {
  dryRun: boolean;
  /** Sessions deleted (or that would be), oldest first. */
  removedSessions: Array<Pick<Session, 'id' | 'title' | 'createdAt'>>;
  keptSessions: number;
  /**
   * The blob collection that followed. In a dry run the sessions still exist, so it shows what is
   * unreachable already: a lower bound of what a real run frees.
   */
  gc: GcReport;
  /** Stored blob bytes freed (or, in a dry run, at least this many would be). */
  freedBytes: number;
}

/**
 * Seed 002's session GC: deletes the oldest sessions beyond `keepSessions` (with their entries,
 * turns, checkpoints and pins; messages a kept fork still needs stay), then sweeps blobs nothing
 * references any more. Run it while no session is writing (see `collectGarbage`).
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
  const sessions = (await store.listSessions()).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const doomed = keep === 0 ? [] : sessions.slice(0, Math.max(0, sessions.length - keep));
  if (!dryRun) for (const session of doomed) await store.deleteSession(session.id);
  const gc = await collectGarbage(store, { dryRun });
  return {
    dryRun,
    removedSessions: doomed.map((session) => ({ id: session.id, title: session.title, createdAt: session.createdAt })),
    keptSessions: sessions.length - doomed.length,
    gc,
    freedBytes: gc.freedBytes,
  };
}
