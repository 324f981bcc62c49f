import { parseInput, SavePointTargetSchema } from '../rewind-entry-schemas.js';
import { InvalidArgumentError, type Entry, type Turn } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import { stopTasksOrFail, type TaskRegistry } from './task-registry.js';

/** `A`: the model proposed tool calls, none has run yet. `B`: the tool results are in. */
export type SavePointKind = 'A' | 'B';

export interface SavePoint {
  turnId: string;
  /** 1-based position of the turn in the session. */
  turnNumber: number;
  point: SavePointKind;
  /** Tool round within the turn (a turn may call tools several times), from 1. */
  step: number;
  /** The message the head points at in this state. */
  messageId: string;
  entry: Entry;
}

/** Record a save point (the runtime calls this as each tool round is proposed and completed). */
export async function recordSavePoint(
  store: Store,
  input: { sessionId: string; turnId: string; point: SavePointKind; step: number; messageId: string },
): Promise<Entry> {
  const turn = await store.getTurn(input.turnId);
  if (turn.sessionId !== input.sessionId) {
    throw new InvalidArgumentError({
      parameter: 'turnId',
      value: input.turnId,
      reason: `turn ${input.turnId} belongs to session ${turn.sessionId}, not ${input.sessionId}.`,
    });
  }
  await store.getMessage(input.messageId, { parts: 'none' });
  return store.appendEntry(input.sessionId, {
    type: 'save-point',
    data: { turnId: input.turnId, point: input.point, step: input.step, messageId: input.messageId },
  });
}

/** Save points of a session in the order they were taken (optionally of one turn). */
export async function listSavePoints(store: Store, sessionId: string, turn?: string | number): Promise<SavePoint[]> {
  const turns = await store.listTurns(sessionId);
  const numberOf = new Map(turns.map((candidate, index) => [candidate.id, index + 1]));
  const wanted = turn === undefined ? undefined : resolveTurn(turns, turn).id;
  const entries = await store.listEntries(sessionId, { type: 'save-point' });
  return entries
    .filter((entry) => wanted === undefined || entry.data.turnId === wanted)
    .map((entry) => ({
      turnId: entry.data.turnId as string,
      turnNumber: numberOf.get(entry.data.turnId as string) ?? 0,
      point: entry.data.point as SavePointKind,
      step: entry.data.step as number,
      messageId: entry.data.messageId as string,
      entry,
    }));
}

/**
 * `rewindTo(turn, point?)`: move the head back to a turn's save point — by default the
 * turn's last one — stopping the background tasks of the turns that are cut. Like every rewind it
 * deletes nothing, bumps the branch generation and can be redone.
 */
export async function rewindToSavePoint(
  store: Store,
  input: { sessionId: string; turn: string | number; point?: SavePointKind; step?: number; tasks?: TaskRegistry },
): Promise<SavePoint> {
  parseInput(SavePointTargetSchema, input, 'input');
  const points = await listSavePoints(store, input.sessionId, input.turn);
  const matching = points.filter(
    (candidate) => (input.point === undefined || candidate.point === input.point) && (input.step === undefined || candidate.step === input.step),
  );
  const target = matching.at(-1);
  if (!target) {
    throw new InvalidArgumentError({
      parameter: 'point',
      value: { turn: input.turn, point: input.point ?? null, step: input.step ?? null },
      code: 'SAVE_POINT_NOT_FOUND',
      reason: `turn ${input.turn} has no ${input.point ? `save point ${input.point}` : 'save point'}${input.step ? ` at step ${input.step}` : ''}; it has ${points.map((candidate) => `${candidate.point}${candidate.step}`).join(', ') || 'none'}.`,
    });
  }
  const session = await store.getSession(input.sessionId);
  if (input.tasks) {
    const turns = await store.listTurns(input.sessionId);
    await stopTasksOrFail(input.tasks, input.sessionId, new Set(turns.slice(Math.max(0, target.turnNumber - 1)).map((candidate) => candidate.id)));
  }
  const { session: moved } = await store.moveHead({
    sessionId: input.sessionId,
    to: target.messageId,
    expectedFrom: session.headMessageId,
    reason: 'rewind',
    bumpGeneration: true,
    data: { savePoint: `${target.point}${target.step}`, turnId: target.turnId },
  });
  input.tasks?.setGeneration(input.sessionId, moved.branchGeneration);
  return target;
}

function resolveTurn(turns: Turn[], turn: string | number): Turn {
  const found = typeof turn === 'number' ? turns[turn - 1] : turns.find((candidate) => candidate.id === turn);
  if (!found) {
    throw new InvalidArgumentError({
      parameter: 'turn',
      value: turn,
      code: 'TURN_NOT_FOUND',
      reason: `the session has ${turns.length} turn(s); give a number from 1 to ${turns.length} or a turn id.`,
    });
  }
  return found;
}
