import { z } from 'zod';
import { discardFork as discardForkDirectory, type DiscardForkResult } from '../fork/index.js';
import { parseInput } from '../model/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { Id } from './session-checks.js';

export const DiscardForkRequest = z.object({ sessionId: Id, force: z.boolean().optional() }).strict();
export type DiscardForkRequest = z.input<typeof DiscardForkRequest>;

/**
 * Deletes an isolated fork's directory and its git work tree registration; the session and its
 * history stay. Refused with `FORK_HAS_UNRECORDED_CHANGES` (nothing deleted) when a tracked file
 * there holds content recorded neither in the store nor in git's HEAD, unless `force`;
 * `NOT_AN_ISOLATED_FORK` for a session without a directory of its own; `TURN_RUNNING` while a turn runs.
 *
 * @example
 * await discardFork({ waypoint }, { sessionId: fork.id });
 */
export async function discardFork(context: OperationContext, request: DiscardForkRequest): Promise<DiscardForkResult> {
  const input = parseInput(DiscardForkRequest, request, 'request');
  requireIdle(context, input.sessionId, 'discard the fork');
  const { store, blobs } = context.waypoint;
  return discardForkDirectory({ store, blobs, sessionId: input.sessionId, ...(input.force === undefined ? {} : { force: input.force }) });
}
