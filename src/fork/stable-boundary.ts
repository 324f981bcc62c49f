import { ConflictError, InvalidArgumentError, type JsonValue, type MessageWithParts, type Session, type Turn } from '../model/index.js';
import type { Store } from '../store/store.js';
import { notStableBoundaryError } from './fork-errors.js';
import { GOAL_ENTRY, onPath, VERIFICATION_ENTRY, withoutActiveRun } from './fork-state.js';

/** What `pinTurnBoundary` stores in `turn.metadata.goalBoundary`. */
export interface GoalBoundary {
  /** The goal at the end of the turn, active-run fields cleared (null: none). */
  goal: JsonValue;
  /** `verification` entries recorded for messages up to the boundary. */
  verificationEntryIds: string[];
}

/**
 * Pins a turn's boundary so a stable fork never has to guess where the turn ends.
 * The runtime calls it when a turn ends, **before** TurnComplete is visible:
 * `turn.boundary` becomes the ordered ids of the turn's messages on the active path, from its user
 * input to its final assistant reply, and `turn.metadata.goalBoundary` the goal snapshot (without
 * active-run fields) and the verification records up to that reply.
 *
 * @example
 * await pinTurnBoundary(store, turn.id);                  // head is the final reply
 * await store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
 * events.emit('turn-complete', …);
 */
export async function pinTurnBoundary(store: Store, turnId: string, options: { finalMessageId?: string } = {}): Promise<Turn> {
  if (typeof turnId !== 'string' || turnId === '') throw new InvalidArgumentError({ parameter: 'turnId', value: turnId, reason: 'must be a turn id.' });
  const turn = await store.getTurn(turnId);
  const input = await store.getMessage(turn.userMessageId, { parts: 'none' });
  const path = await store.history(turn.sessionId, { fromDepth: input.depth, parts: 'none' });
  if (path[0]?.id !== input.id) {
    throw new ConflictError({
      code: 'TURN_NOT_ON_ACTIVE_PATH',
      message: `Turn ${turnId}'s input ${input.id} is no longer on session ${turn.sessionId}'s active path, so its boundary cannot be pinned. Nothing was changed.`,
      details: { turnId, sessionId: turn.sessionId },
    });
  }
  let end = -1;
  if (options.finalMessageId !== undefined) {
    end = path.findIndex((message) => message.id === options.finalMessageId);
    if (end < 0)
      throw new InvalidArgumentError({
        parameter: 'finalMessageId',
        value: options.finalMessageId,
        reason: `is not on the active path after turn ${turnId}'s input.`,
      });
  } else {
    for (let index = path.length - 1; index > 0; index--) {
      if (path[index]!.turnId === turn.id && path[index]!.role === 'assistant' && path[index]!.kind !== 'summary') {
        end = index;
        break;
      }
    }
  }
  if (end <= 0 || path[end]!.role !== 'assistant') {
    throw new InvalidArgumentError({
      code: 'TURN_HAS_NO_REPLY',
      parameter: 'turnId',
      value: turnId,
      reason: 'the turn has no assistant reply after its input yet; pin the boundary when the final reply is written.',
    });
  }
  const boundary = path.slice(0, end + 1);
  const [goal] = await store.listEntries(turn.sessionId, { type: GOAL_ENTRY, last: 1 });
  const verifications = await store.listEntries(turn.sessionId, { type: VERIFICATION_ENTRY });
  const verified = await onPath(
    store,
    boundary.at(-1)!,
    verifications.map((entry) => entry.data.messageId).filter((id): id is string => typeof id === 'string'),
  );
  const goalBoundary: GoalBoundary = {
    goal: withoutActiveRun(goal?.data.goal),
    verificationEntryIds: verifications.filter((entry) => verified.has(entry.data.messageId as string)).map((entry) => entry.id),
  };
  return store.updateTurn(turn.id, { boundary: boundary.map((message) => message.id), metadata: { goalBoundary: goalBoundary as unknown as JsonValue } });
}

/** A message checked as a stable fork point. */
export interface StableBoundary {
  message: MessageWithParts;
  turn: Turn;
  pinned: GoalBoundary | null;
}

/**
 * Checks that `messageId` is the final, non-error assistant reply of a completed turn whose pinned
 * boundary lies, contiguous and in order, on `parent`'s active path. Reads only the boundary's
 * depth range, so a parent appending its next turn meanwhile does not matter.
 */
export async function checkStableBoundary(store: Store, parent: Session, messageId: string): Promise<StableBoundary> {
  const message = await store.getMessage(messageId, { parts: 'none' });
  if (message.treeId !== parent.treeId) throw notStableBoundaryError(messageId, `it is not part of session ${parent.id}'s conversation.`);
  if (message.role !== 'assistant' || message.kind === 'summary')
    throw notStableBoundaryError(
      messageId,
      `it is a ${message.kind === 'summary' ? 'compaction summary' : `${message.role} message`}; the fork button sits on a turn's final assistant reply.`,
    );
  if (message.status === 'error')
    throw notStableBoundaryError(messageId, 'that reply ended in an error; fork at an earlier completed reply, or from the message instead.');
  if (message.status !== 'complete') throw notStableBoundaryError(messageId, `that reply is ${message.status}, not complete.`);
  if (message.turnId === null) throw notStableBoundaryError(messageId, 'it belongs to no turn.');
  const turn = await store.getTurn(message.turnId);
  if (turn.status !== 'complete') throw notStableBoundaryError(messageId, `its turn is ${turn.status}; a stable fork needs a completed turn.`);
  const boundary = turn.boundary;
  if (!boundary || boundary.length === 0)
    throw notStableBoundaryError(messageId, 'its turn has no pinned boundary (pinTurnBoundary runs before TurnComplete).');
  if (boundary.at(-1) !== messageId) throw notStableBoundaryError(messageId, `it is not the final reply of its turn (that is ${boundary.at(-1)}).`);
  const fromDepth = message.depth - (boundary.length - 1);
  const onActive = fromDepth < 0 ? [] : await store.history(parent.id, { fromDepth, toDepth: message.depth + 1, parts: 'none' });
  if (onActive.length !== boundary.length || onActive.some((candidate, index) => candidate.id !== boundary[index])) {
    throw notStableBoundaryError(
      messageId,
      `its turn's messages are not contiguous on session ${parent.id}'s active path (it was rewound past, or the boundary is stale).`,
    );
  }
  const pinned = readGoalBoundary(turn);
  return { message, turn, pinned };
}

function readGoalBoundary(turn: Turn): GoalBoundary | null {
  const value = turn.metadata.goalBoundary;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const ids = Array.isArray(value.verificationEntryIds) ? value.verificationEntryIds.filter((id): id is string => typeof id === 'string') : [];
  return { goal: value.goal ?? null, verificationEntryIds: ids };
}
