import { z } from 'zod';
import { isAbsolute } from 'node:path';
import { InvalidArgumentError, parseInput } from '../model/index.js';
import { forkSession } from './fork-session.js';
import type { ForkSessionResult } from './fork-result.js';
import type { OperationContext } from './operation-context.js';
import { Id } from './session-checks.js';

export const ContinueSessionRequest = z.object({
  sessionId: Id,
  /** The new directory (absolute; missing or empty). */
  dir: z.string().refine((value) => isAbsolute(value), 'must be an absolute path'),
  /** The message to continue from (default the session's head). */
  at: Id.optional(),
  /** `store`: build the files from the store even when the parent's directory is reachable here. */
  source: z.enum(['auto', 'store']).optional(),
  title: z.string().trim().min(1).max(500).optional(),
  commandId: Id.optional(),
});
export type ContinueSessionRequest = z.infer<typeof ContinueSessionRequest>;

/**
 * "Continue here": an isolated fork at the session's head (or at `at`) into `dir` on this
 * machine, so turns run there while the session's own directory, wherever it is, stays as it is.
 * Its files come from the parent's directory when this machine reaches it, else from the store
 * alone (a session recorded on another machine); `materialized.fromStore` then says what the store
 * does not hold. An empty session is refused with `SESSION_EMPTY`; everything else as `forkSession`.
 *
 * @example
 * const { session } = await continueSession({ waypoint }, { sessionId, dir: '/work/here' });
 */
export async function continueSession(
  context: OperationContext,
  request: ContinueSessionRequest,
  options: { onProgress?: (done: number, total: number) => void } = {},
): Promise<ForkSessionResult> {
  const input = parseInput(ContinueSessionRequest, request, 'request');
  const messageId = input.at ?? (await context.waypoint.store.getSession(input.sessionId)).headMessageId;
  if (messageId === null) {
    throw new InvalidArgumentError({
      code: 'SESSION_EMPTY',
      parameter: 'sessionId',
      value: input.sessionId,
      reason: 'it has no messages yet, so there is no point to continue from; start a turn in it instead.',
    });
  }
  return forkSession(
    context,
    {
      from: 'message',
      sessionId: input.sessionId,
      messageId,
      workspace: { mode: 'isolated', dir: input.dir, ...(input.source === undefined ? {} : { source: input.source }) },
      ...(input.title === undefined ? {} : { title: input.title }),
      ...(input.commandId === undefined ? {} : { commandId: input.commandId }),
    },
    options,
  );
}
