import { z } from 'zod';
import type { GcReport } from '../blobs/index.js';
import { planSessionTrim, trimSessions, type SessionTrimPlan, type TrimSessionsReport } from '../checkpoint/index.js';
import { parseInput } from '../model/index.js';
import type { BlobStorageStats } from '../store/index.js';
import { removeAbandonedKeptFiles } from '../workspace/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { GcNeedsConfirmationError, type SessionToDelete } from './operation-errors.js';

/**
 * Sweep blobs nothing refers to; with `keepSessions`, first delete every session family but the n
 * with the latest activity. `dryRun` reports and removes nothing. Deleting sessions needs
 * `confirm`: `true`, or the ids a person saw (a session not among them is kept, with its family).
 */
export const CollectGarbageRequest = z
  .object({
    dryRun: z.boolean().default(false),
    keepSessions: z.number().int().min(1).optional(),
    confirm: z.union([z.literal(true), z.array(z.string().min(1))]).optional(),
  })
  .strict();
export type CollectGarbageRequest = z.input<typeof CollectGarbageRequest>;

export interface GarbageReport {
  dryRun: boolean;
  keepSessions: number | null;
  /** Sessions deleted (or that would be), oldest first. */
  removedSessions: TrimSessionsReport['removedSessions'];
  /** Subagent transcripts whose session was already gone, deleted (or that would be) too. */
  orphanSubagentSessions: TrimSessionsReport['orphanSubagentSessions'];
  /** Session families kept (null without `keepSessions`). */
  keptFamilies: number | null;
  gc: GcReport;
  /** Stored blob bytes freed (in a dry run: at least this many would be). */
  freedBytes: number;
  /** Bytes the database file shrank by, its free pages given back after the sweep (0 in a dry run). */
  databaseFreedBytes: number;
  before: BlobStorageStats;
  after: BlobStorageStats;
}

/**
 * Garbage collection and retention: session families beyond `keepSessions` go, ranked by last
 * activity (a family — a main session, its forks and side chats, and every subagent transcript
 * they ran — is kept or deleted whole, so nothing is deleted while what branched from it stays);
 * then blobs no record reaches are swept
 * and staged blobs compressed, and the database's free pages given back (`compactDatabase`). The sweep is safe beside writers in any process (a blob a write in
 * flight stored is pinned by its write intent until the row naming it commits); in a runtime it
 * still refuses while any of its sessions runs a turn (`TURN_RUNNING`), since retention may delete
 * the session that turn writes to. Deleting sessions without `confirm` is refused with
 * `GC_NEEDS_CONFIRMATION` listing them (nothing deleted). `onStart` gets the blob counts
 * before anything is marked (for a progress line).
 *
 * @example
 * const report = await collectGarbage({ waypoint }, { keepSessions: 20, dryRun: true });
 * console.log(report.removedSessions.length, report.freedBytes);
 */
export async function collectGarbage(
  context: OperationContext,
  request: CollectGarbageRequest = {},
  options: { onStart?: (before: BlobStorageStats) => void } = {},
): Promise<GarbageReport> {
  const input = parseInput(CollectGarbageRequest, request, 'request');
  const { store, blobs } = context.waypoint;
  for (const session of context.isRunning ? await store.listSessions() : []) requireIdle(context, session.id, 'collect garbage');
  const before = await store.blobs.stats();
  options.onStart?.(before);
  let removedSessions: TrimSessionsReport['removedSessions'] = [];
  let orphanSubagentSessions: TrimSessionsReport['orphanSubagentSessions'] = [];
  let keptFamilies: number | null = null;
  let gc: GcReport;
  if (input.keepSessions !== undefined && !input.dryRun && input.confirm === undefined) {
    const sessions = sessionsToDelete(await planSessionTrim(store, { keepSessions: input.keepSessions }));
    if (sessions.length > 0) throw new GcNeedsConfirmationError({ keepSessions: input.keepSessions, sessions });
  }
  if (input.keepSessions !== undefined) {
    const only = Array.isArray(input.confirm) ? { only: input.confirm } : {};
    const trimmed = await trimSessions(store, { keepSessions: input.keepSessions, dryRun: input.dryRun, ...only });
    keptFamilies = trimmed.keptFamilies;
    removedSessions = trimmed.removedSessions;
    orphanSubagentSessions = trimmed.orphanSubagentSessions;
    gc = trimmed.gc;
  } else {
    gc = await blobs.gc({ dryRun: input.dryRun });
  }
  const databaseFreedBytes = input.dryRun ? 0 : ((await store.compactDatabase?.())?.freedBytes ?? 0);
  // Files a killed process's rewinds kept for reuse (their contents are in the store).
  if (!input.dryRun && store.capabilities.blobFiles) removeAbandonedKeptFiles(store.location);
  const after = await store.blobs.stats();
  return {
    dryRun: input.dryRun,
    keepSessions: input.keepSessions ?? null,
    removedSessions,
    orphanSubagentSessions,
    keptFamilies,
    gc,
    freedBytes: gc.freedBytes,
    databaseFreedBytes,
    before,
    after,
  };
}

/** Every session a trim plan deletes, subagent transcripts and orphans included, oldest family first. */
export function sessionsToDelete(plan: Pick<SessionTrimPlan, 'removedSessions' | 'orphanSubagentSessions'>): SessionToDelete[] {
  return [
    ...plan.removedSessions.flatMap((session) => [
      { id: session.id, title: session.title, kind: session.kind, familyId: session.familyId, lastActivityAt: session.familyLastActivityAt },
      ...session.subagentSessions.map((sub) => ({
        id: sub.id,
        title: sub.title,
        kind: 'subagent',
        familyId: session.familyId,
        lastActivityAt: session.familyLastActivityAt,
      })),
    ]),
    ...plan.orphanSubagentSessions.map((orphan) => ({ id: orphan.id, title: orphan.title, kind: 'subagent', familyId: null, lastActivityAt: null })),
  ];
}
