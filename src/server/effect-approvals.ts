import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../model/index.js';
import type { ApproveEffect, EffectApprovalRequest, EffectDecision } from '../runtime/index.js';
import { ServerRequestError } from './server-errors.js';

/** An external tool call waiting for a person's decision, as the page shows it. */
export interface PendingApproval {
  approvalId: string;
  sessionId: string;
  toolName: string;
  input: JsonValue;
  /** Why the runtime asks: the session's policy is `ask`, or an identical call already succeeded or is in doubt. */
  reason: EffectApprovalRequest['reason'];
  /** The ledger's earlier effect of the same call (a repeat or an in-doubt call). */
  previousEffectId: string | null;
  createdAt: number;
}

/** What an approval's listeners hear: a request, or its end (decided by a person, or denied because nobody could). */
export type ApprovalEvent =
  | { type: 'effect.approval'; sessionId: string; approval: PendingApproval }
  | { type: 'effect.decided'; sessionId: string; approvalId: string; decision: EffectDecision; by: 'person' | 'nobody' };

/**
 * The runtime's approval callback for `waypoint serve`: an external call that needs a decision is
 * shown to every tab following its session (an event), and waits until one answers
 * (`effect.decide`). When no tab follows the session, nobody can approve: the call is denied at
 * once. Stopping the turn, or the server, denies what is still waiting.
 *
 * @example
 * const approvals = new EffectApprovals();
 * const runtime = createRuntime({ waypoint, model, approveEffect: approvals.approve });
 * await startServer({ waypoint, runtime, approvals, webRoot, version });
 */
export class EffectApprovals {
  private readonly pending = new Map<string, { approval: PendingApproval; settle: (decision: EffectDecision) => void }>();
  private readonly listeners = new Set<(event: ApprovalEvent) => void>();
  /** Whether someone can approve for a session now; the server sets it (a socket follows the session). */
  canAsk: (sessionId: string) => boolean = () => false;

  readonly approve: ApproveEffect = (request) => {
    if (!this.canAsk(request.session.id)) return 'deny';
    const approval: PendingApproval = {
      approvalId: `apv_${randomUUID()}`,
      sessionId: request.session.id,
      toolName: request.toolName,
      input: request.input,
      reason: request.reason,
      previousEffectId: request.previous?.id ?? null,
      createdAt: Date.now(),
    };
    return new Promise<EffectDecision>((resolve) => {
      this.pending.set(approval.approvalId, { approval, settle: resolve });
      this.emit({ type: 'effect.approval', sessionId: approval.sessionId, approval });
    });
  };

  /** Subscribes to requests and decisions; returns the unsubscribe. */
  on(listener: (event: ApprovalEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The calls of a session still waiting, oldest first. */
  list(sessionId: string): PendingApproval[] {
    return [...this.pending.values()].map((entry) => entry.approval).filter((approval) => approval.sessionId === sessionId);
  }

  /** A person's answer: `run` lets the call happen, `deny` tells the agent it was declined. `APPROVAL_NOT_FOUND` when it is no longer waiting. */
  decide(approvalId: string, decision: 'run' | 'deny'): PendingApproval & { decision: EffectDecision } {
    const entry = this.pending.get(approvalId);
    if (!entry) {
      throw new ServerRequestError(
        'APPROVAL_NOT_FOUND',
        `No call is waiting for approval "${approvalId}": it was decided already, or its turn ended. List the waiting ones with effect.pending.`,
        { approvalId },
        404,
      );
    }
    this.settle(entry, decision, 'person');
    return { ...entry.approval, decision };
  }

  /** Denies what a session (or, without one, every session) still waits for: its turn stopped, or the server closes. */
  denyWaiting(sessionId?: string): void {
    for (const entry of [...this.pending.values()]) if (sessionId === undefined || entry.approval.sessionId === sessionId) this.settle(entry, 'deny', 'nobody');
  }

  private settle(entry: { approval: PendingApproval; settle: (decision: EffectDecision) => void }, decision: EffectDecision, by: 'person' | 'nobody'): void {
    this.pending.delete(entry.approval.approvalId);
    entry.settle(decision);
    this.emit({ type: 'effect.decided', sessionId: entry.approval.sessionId, approvalId: entry.approval.approvalId, decision, by });
  }

  private emit(event: ApprovalEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
