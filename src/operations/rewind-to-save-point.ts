import { z } from 'zod';
import { parseInput } from '../model/index.js';
import { rewindToSavePoint as moveToSavePoint, type SavePoint } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { Id } from './session-checks.js';

/** A turn (1-based number or id) and, optionally, which of its save points: `A` (calls proposed, none run) or `B` (calls done), and the step. */
export const SavePointRewindRequest = z
  .object({
    sessionId: Id,
    turn: z.union([z.number().int().positive(), Id]),
    point: z.enum(['A', 'B']).optional(),
    step: z.number().int().positive().optional(),
  })
  .strict();
export type SavePointRewindRequest = z.input<typeof SavePointRewindRequest>;

/**
 * Moves the conversation back to a turn's save point (by default its last); the files stay.
 * Refused while a turn runs (`TURN_RUNNING`) or with `SAVE_POINT_NOT_FOUND`; stops the background
 * tasks of the turns it cuts. Emits `rewind` (kind `save-point`) after the commit.
 *
 * @example
 * const point = await rewindToSavePoint({ waypoint }, { sessionId, turn: 1, point: 'A' });
 */
export async function rewindToSavePoint(context: OperationContext, request: SavePointRewindRequest): Promise<SavePoint> {
  const input = parseInput(SavePointRewindRequest, request, 'request');
  requireIdle(context, input.sessionId, 'rewind');
  const { store, tasks } = context.waypoint;
  const point = await moveToSavePoint(store, {
    sessionId: input.sessionId,
    turn: input.turn,
    tasks,
    ...(input.point === undefined ? {} : { point: input.point }),
    ...(input.step === undefined ? {} : { step: input.step }),
  });
  context.events?.emit('rewind', { sessionId: input.sessionId, session: await store.getSession(input.sessionId), result: null, kind: 'save-point' });
  return point;
}
