import { ForkFromRequest } from '../fork/index.js';
import { parseInput } from '../model/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { forkSessionResult, type ForkSessionResult } from './fork-result.js';
import { forkerOf } from './preview-fork.js';

export { ForkFromRequest };

/**
 * A fork whose head is a turn's save point (by default its last), titled `name`; files as for a
 * fork from a message (a shared fork that changes files needs `confirm: true`). Refused while the
 * parent runs a turn (`TURN_RUNNING`) or with `SAVE_POINT_NOT_FOUND`. Emits `fork`.
 *
 * @example
 * const fork = await forkFromSavePoint({ waypoint }, { sessionId, turn: 1, point: 'B', name: 'After the write', workspace: { mode: 'isolated' } });
 */
export async function forkFromSavePoint(context: OperationContext, request: ForkFromRequest): Promise<ForkSessionResult> {
  const input = parseInput(ForkFromRequest, request, 'request');
  requireIdle(context, input.sessionId, 'fork');
  const result = forkSessionResult(input.sessionId, await forkerOf(context).forkFrom(input));
  context.events?.emit('fork', { sessionId: input.sessionId, result });
  return result;
}
