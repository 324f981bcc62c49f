import { z } from 'zod';
import type { GcReport } from '../blobs/index.js';
import { trimSessions, type TrimSessionsReport } from '../checkpoint/index.js';
import { parseInput } from '../model/index.js';
import type { BlobStorageStats } from '../store/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';

/** Sweep blobs nothing refers to; with `keepSessions`, delete all but the newest n sessions first. `dryRun` reports and removes nothing. */
export const CollectGarbageRequest = z
  .object({
    dryRun: z.boolean().default(false),
    keepSessions: z.number().int().min(1).optional(),
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
  gc: GcReport;
  /** Stored blob bytes freed (in a dry run: at least this many would be). */
  freedBytes: number;
  before: BlobStorageStats;
  after: BlobStorageStats;
}

/**
 * Garbage collection and retention: sessions beyond `keepSessions` go (subagent transcripts with
 * their session; messages a kept fork still needs stay), then blobs no record reaches are swept
 * and staged blobs compressed. The sweep is safe beside writers in any process (a blob a write in
 * flight stored is pinned by its write intent until the row naming it commits); in a runtime it
 * still refuses while any of its sessions runs a turn (`TURN_RUNNING`), since retention may delete
 * the session that turn writes to. `onStart` gets the blob counts
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
  let gc: GcReport;
  if (input.keepSessions !== undefined) {
    const trimmed = await trimSessions(store, { keepSessions: input.keepSessions, dryRun: input.dryRun });
    removedSessions = trimmed.removedSessions;
    orphanSubagentSessions = trimmed.orphanSubagentSessions;
    gc = trimmed.gc;
  } else {
    gc = await blobs.gc({ dryRun: input.dryRun });
  }
  const after = await store.blobs.stats();
  return {
    dryRun: input.dryRun,
    keepSessions: input.keepSessions ?? null,
    removedSessions,
    orphanSubagentSessions,
    gc,
    freedBytes: gc.freedBytes,
    before,
    after,
  };
}
