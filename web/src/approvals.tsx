import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type Api, describeError } from './api.js';
import type { PendingApproval, ServerEvent } from './types.js';

const WHY: Record<PendingApproval['reason'], string> = {
  policy: 'this session asks before calls that change things outside the workspace',
  'already-succeeded': 'an identical call already succeeded in this session',
  'in-doubt': 'an identical call started earlier and never reported an outcome',
};

/**
 * External tool calls of a session waiting for a person: each with what the agent wants to run and
 * why it asks, and Approve / Deny. Loaded when the session opens (calls already waiting) and kept
 * current by the `effect.approval` and `effect.decided` events, so another tab's answer clears it here.
 */
export function ApprovalRequests(props: { api: Api; sessionId: string }): ReactNode {
  const { api, sessionId } = props;
  const [waiting, setWaiting] = useState<PendingApproval[]>([]);
  const [error, setError] = useState<string | null>(null);
  const newest = useRef<HTMLButtonElement | null>(null);
  const newestId = waiting.at(-1)?.approvalId ?? null;

  // The agent waits for the answer: a new request takes the focus, so a keyboard answers it at once.
  useEffect(() => {
    if (newestId !== null) newest.current?.focus();
  }, [newestId]);

  useEffect(() => {
    setWaiting([]);
    let live = true;
    const off = api.rpc.onEvent((method, params) => {
      if (method !== 'event') return;
      const event = params as ServerEvent;
      if (event.sessionId !== sessionId) return;
      if (event.type === 'effect.approval' && event.approval) {
        const approval = event.approval;
        setWaiting((previous) => (previous.some((item) => item.approvalId === approval.approvalId) ? previous : [...previous, approval]));
      }
      if (event.type === 'effect.decided') setWaiting((previous) => previous.filter((item) => item.approvalId !== event.approvalId));
    });
    api
      .pendingApprovals(sessionId)
      .then((found) => {
        if (live) setWaiting((previous) => [...found.approvals.filter((item) => !previous.some((seen) => seen.approvalId === item.approvalId)), ...previous]);
      })
      .catch(() => {});
    return () => {
      live = false;
      off();
    };
  }, [api, sessionId]);

  const decide = async (approvalId: string, decision: 'run' | 'deny') => {
    try {
      await api.decideApproval(approvalId, decision);
      setWaiting((previous) => previous.filter((item) => item.approvalId !== approvalId));
      setError(null);
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  if (waiting.length === 0 && error === null) return null;
  return (
    <section className="approvals" aria-label="Waiting for your approval">
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {waiting.map((approval, index) => (
        <div key={approval.approvalId} className="approval" role="group" aria-label={`Approve ${approval.toolName}`}>
          <p>
            The agent wants to run <code>{approval.toolName}</code>: {WHY[approval.reason] ?? approval.reason}.
          </p>
          <pre className="approval-input">{JSON.stringify(approval.input, null, 2)}</pre>
          <div className="buttons">
            <button type="button" ref={index === waiting.length - 1 ? newest : undefined} onClick={() => void decide(approval.approvalId, 'run')}>
              Approve
            </button>
            <button type="button" onClick={() => void decide(approval.approvalId, 'deny')}>
              Deny
            </button>
          </div>
        </div>
      ))}
    </section>
  );
}
