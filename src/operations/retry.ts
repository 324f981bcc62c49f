import { z } from 'zod';
import { parseInput, type Session } from '../model/index.js';
import { retryTurn, type StartTurn } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { Id } from './session-checks.js';

/** Run the last turn again: `messageId` is its final reply (the last message of the conversation). */
export const RetryRequest = z.object({ sessionId: Id, messageId: Id }).strict();
export type RetryRequest = z.input<typeof RetryRequest>;

export interface RetryResult<Turn> {
  session: Session;
  /** The input sent again. */
  text: string;
  turn: Turn;
}

/**
 * Retries: the conversation rewinds to before the reply's input (the old reply stays in the tree)
 * and `startTurn` runs the same input again. Refused while a turn runs (`TURN_RUNNING`) or for
 * anything but the last reply (`RETRY_NOT_LAST_REPLY`); a refusal changes nothing. Emits `rewind`
 * (kind `retry`) once the rewind committed.
 *
 * @example
 * const retried = await retry({ waypoint }, { sessionId, messageId: replyId }, (text, session) => runtime.runTurn(session.id, text));
 */
export async function retry<Turn>(context: OperationContext, request: RetryRequest, startTurn: StartTurn<Turn>): Promise<RetryResult<Turn>> {
  const input = parseInput(RetryRequest, request, 'request');
  requireIdle(context, input.sessionId, 'retry');
  const { store, tasks } = context.waypoint;
  return retryTurn(store, {
    ...input,
    tasks,
    startTurn: (text, session) => {
      context.events?.emit('rewind', { sessionId: session.id, session, result: null, kind: 'retry' });
      return startTurn(text, session);
    },
  });
}
