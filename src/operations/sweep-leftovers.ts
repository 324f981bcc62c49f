import { z } from 'zod';
import { sessionWorkspace } from '../checkpoint/index.js';
import { parseInput } from '../model/index.js';
import { DEFAULT_LEFTOVER_MIN_AGE_MS, sweepLeftovers as sweepWorkspace, type LeftoverSweepReport } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { Id, requireWorkspace } from './session-checks.js';

/**
 * Sweep the hidden files killed writes left in a session's workspace (`.wp-tmp` temp files,
 * `.wp-old` parked contents). `minAgeMs`: leftovers written or renamed more recently are kept
 * (default one hour); `dryRun` lists what would go and changes nothing.
 */
export const SweepLeftoversRequest = z
  .object({
    sessionId: Id,
    dryRun: z.boolean().default(false),
    minAgeMs: z.number().int().min(0).default(DEFAULT_LEFTOVER_MIN_AGE_MS),
  })
  .strict();
export type SweepLeftoversRequest = z.input<typeof SweepLeftoversRequest>;

/** What a sweep removed (or would), what it kept and why. */
export type SweepLeftoversResult = LeftoverSweepReport & { workdir: string };

/**
 * Removes the hidden files writes killed mid-way left in the session's workspace, each content
 * stored and recorded first as a save kept aside in the session (listed by `rewindStatus`, put
 * back by `restorePreserved`), so nothing is lost. Leftovers a pending journal or write intent
 * names, whose writer still runs, or younger than `minAgeMs` are kept (see `sweepLeftovers` in the
 * rewind engine for why each is safe). Refused while a turn of the session runs (`TURN_RUNNING`) or
 * another process changes the workspace's files (`WORKSPACE_BUSY`); a refusal changes nothing.
 *
 * @example
 * const preview = await sweepLeftovers({ waypoint }, { sessionId, dryRun: true });
 * if (preview.swept.length) await sweepLeftovers({ waypoint }, { sessionId });
 */
export async function sweepLeftovers(context: OperationContext, request: SweepLeftoversRequest): Promise<SweepLeftoversResult> {
  const input = parseInput(SweepLeftoversRequest, request, 'request');
  requireIdle(context, input.sessionId, 'sweep leftover temp files');
  const { store, blobs } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  requireWorkspace(session);
  const workspace = sessionWorkspace(session, store.location);
  const report = await sweepWorkspace({ store, blobs, workspace, sessionId: session.id, dryRun: input.dryRun, minAgeMs: input.minAgeMs });
  return { ...report, workdir: workspace.primaryRoot.dir };
}
