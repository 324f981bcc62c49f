import type { Session, SessionKind } from '../model/index.js';
import { EffectPolicy, parseInput } from './fork-schemas.js';

export interface EffectPolicyOptions {
  /** Per session kind; defaults: main `run`, fork `ask`, side_chat `ask`. */
  byKind?: Partial<Record<SessionKind, EffectPolicy>>;
}

const DEFAULTS: Record<SessionKind, EffectPolicy> = { main: 'run', fork: 'ask', side_chat: 'ask' };

/**
 * How the runtime treats an **external** tool call (one the effects ledger records) in a session:
 * `run` it, `ask` for approval first, or `dry-run` it (describe, do not perform). Two
 * timelines that both run the same external action unattended do it twice, so forks and side chats
 * ask by default. A session may carry its own choice in `metadata.effectPolicy`; it wins over the
 * per-kind configuration. Workspace tools are checkpointed and need no policy.
 *
 * @example
 * if (effectPolicyFor(session) === 'ask' && !(await approve(call))) return skipped(call);
 */
export function effectPolicyFor(session: Pick<Session, 'kind' | 'metadata'>, options: EffectPolicyOptions = {}): EffectPolicy {
  const own = session.metadata.effectPolicy;
  if (own !== undefined) return parseInput(EffectPolicy, own, 'session.metadata.effectPolicy');
  const configured = options.byKind?.[session.kind];
  if (configured !== undefined) return parseInput(EffectPolicy, configured, `byKind.${session.kind}`);
  return DEFAULTS[session.kind];
}
