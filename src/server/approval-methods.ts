import { z } from 'zod';
import type { EffectApprovals } from './effect-approvals.js';
import { method, type Method } from './rpc.js';
import type { ServerContext } from './server-context.js';
import { ServerRequestError } from './server-errors.js';

const Id = z.string().trim().min(1).max(200);

function approvalsOf(context: ServerContext): EffectApprovals {
  if (!context.approvals)
    throw new ServerRequestError('APPROVALS_OFF', 'This server was started with a runtime that does not ask it for approvals: nothing waits here.');
  return context.approvals;
}

/** Approving external effects from the page: what waits, and a person's answer. */
export const approvalMethods: Record<string, Method<ServerContext>> = {
  'effect.pending': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => {
    await context.waypoint.store.getSession(sessionId);
    return { sessionId, approvals: context.approvals ? context.approvals.list(sessionId) : [] };
  }),

  'effect.decide': method(z.object({ approvalId: Id, decision: z.enum(['run', 'deny']) }).strict(), async (context, params) => {
    const decided = approvalsOf(context).decide(params.approvalId, params.decision);
    return { approvalId: decided.approvalId, sessionId: decided.sessionId, decision: decided.decision };
  }),
};
