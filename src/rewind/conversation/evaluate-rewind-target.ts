import { NotFoundError } from '../../model/index.js';
import { compactedPositions, isOnActivePath, isUserInput } from '../../history/index.js';
import type { Store } from '../../store/store.js';
import type { RewindScope } from './rewind-target.js';

export type RewindStrategy = 'active_chain' | 'file_only' | 'unavailable';

export interface RewindTargetEvaluation {
  strategy: RewindStrategy;
  /** Scopes that can be rewound to this target now. */
  scopes: RewindScope[];
  /** The target is hidden from the model by a compaction summary. */
  compacted: boolean;
  /** Recorded file checkpoints made from this target's turn on. */
  checkpointCount: number;
  /** Why a scope is unavailable, for a person. */
  reason?: string;
}

/**
 * Can the session be rewound to `messageId`, and with which scopes:
 * - `active_chain`: the target is a user input on the active path — or hidden by compaction while
 *   the conversation is part of the rewind; all three scopes when files changed since, else
 *   `conversation` only.
 * - `file_only`: the target is hidden by compaction and only files are asked for, and they changed.
 * - `unavailable`: no such target on the active path, or files asked for with no checkpoint.
 */
export async function evaluateRewindTarget(store: Store, sessionId: string, messageId: string, scope: RewindScope): Promise<RewindTargetEvaluation> {
  const session = await store.getSession(sessionId);
  const unavailable = (reason: string, compacted = false, checkpointCount = 0): RewindTargetEvaluation => ({
    strategy: 'unavailable',
    scopes: [],
    compacted,
    checkpointCount,
    reason,
  });
  let message;
  try {
    message = await store.getMessage(messageId, { parts: 'none' });
  } catch (error) {
    if (error instanceof NotFoundError) return unavailable(`message ${messageId} does not exist`);
    throw error;
  }
  if (!(await isOnActivePath(store, session, message))) return unavailable('the message is not on the active conversation');
  if (!isUserInput(message)) return unavailable('only a message the user typed can be rewound to');

  const path = await store.history(sessionId, { parts: 'none' });
  const inputsFromTarget = new Set(
    path
      .slice(message.depth)
      .filter(isUserInput)
      .map((input) => input.id),
  );
  const checkpoints = (await store.listCheckpoints(sessionId)).filter(
    (checkpoint) => checkpoint.status === 'recorded' && checkpoint.anchorMessageId !== null && inputsFromTarget.has(checkpoint.anchorMessageId),
  );
  const checkpointCount = checkpoints.length;
  const compacted = compactedPositions(path).has(message.depth);

  if (scope === 'workspace' && checkpointCount === 0) return unavailable('no file was changed from this message on', compacted, 0);
  if (scope === 'both' && checkpointCount === 0) return unavailable('no file was changed from this message on; rewind the conversation alone', compacted, 0);
  if (compacted && scope === 'workspace') return { strategy: 'file_only', scopes: ['workspace'], compacted, checkpointCount };
  const scopes: RewindScope[] = checkpointCount > 0 ? ['conversation', 'workspace', 'both'] : ['conversation'];
  return { strategy: 'active_chain', scopes: compacted ? scopes.filter((candidate) => candidate !== 'workspace') : scopes, compacted, checkpointCount };
}
