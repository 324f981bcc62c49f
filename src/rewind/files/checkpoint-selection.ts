import { ConflictError, InvalidArgumentError, WaypointError, type Checkpoint, type Message, type Session } from '../../model/index.js';
import type { Store } from '../../store/index.js';

/**
 * Checks that `messageId` names a user input message of the session's conversation tree — the only
 * kind of message a rewind can target — and returns it.
 */
export async function requireUserMessage(store: Store, session: Session, messageId: string): Promise<Message> {
  const message = await store.getMessage(messageId, { parts: 'none' });
  if (message.role !== 'user' || message.kind !== 'input') {
    throw new InvalidArgumentError({
      code: 'NOT_A_USER_MESSAGE',
      parameter: 'messageId',
      value: messageId,
      reason: `${messageId} is a ${message.role} ${message.kind} message; file rewinds target the user message that started a turn.`,
    });
  }
  if (message.treeId !== session.treeId) {
    throw new InvalidArgumentError({
      code: 'MESSAGE_NOT_IN_SESSION',
      parameter: 'messageId',
      value: messageId,
      reason: `${messageId} does not belong to session ${session.id}'s conversation.`,
    });
  }
  return message;
}

/**
 * Every checkpoint of the session from a message on: those anchored at the message's turn and at
 * every later user message, plus anything recorded after the first of them. Oldest first.
 *
 * Only that range is read from the store (`afterSeq`, an indexed range of the session's
 * checkpoints), not the whole session: where each anchor first appears is remembered per store
 * and session (see {@link AnchorIndex}), so a call reads the range asked for plus the checkpoints
 * recorded since the last call, and looks up only anchors it has not seen.
 */
export async function checkpointsFromMessage(store: Store, session: Session, message: Message): Promise<Checkpoint[]> {
  const facts = anchorFactsOf(store);
  facts.set(message.id, { id: message.id, createdAt: message.createdAt });
  const atOrAfter = (anchor: AnchorFact | undefined): boolean =>
    !!anchor && (anchor.id === message.id || anchor.createdAt > message.createdAt || (anchor.createdAt === message.createdAt && anchor.id > message.id));

  const known = anchorIndexOf(store, session.id);
  await lookUpAnchors(store, facts, known.firstSeq.keys());
  let start: number | null = null;
  for (const [anchor, seq] of known.firstSeq) if ((start === null || seq < start) && atOrAfter(facts.get(anchor))) start = seq;
  const lastSeq = known.lastSeq;
  // Known start: the range from it (checkpoints recorded since are in it). Unknown: only what was
  // recorded since the last call can hold the start.
  const rows = await store.listCheckpoints(session.id, { afterSeq: start === null ? lastSeq : start - 1 });
  const recorded = rows.filter((checkpoint) => checkpoint.seq > lastSeq);
  learn(anchorIndexOf(store, session.id), recorded);
  if (start !== null) return rows;
  await lookUpAnchors(
    store,
    facts,
    recorded.map((checkpoint) => checkpoint.anchorMessageId).filter((id): id is string => id !== null),
  );
  const first = rows.find((checkpoint) => checkpoint.anchorMessageId !== null && atOrAfter(facts.get(checkpoint.anchorMessageId)));
  return first ? rows.filter((checkpoint) => checkpoint.seq >= first.seq) : [];
}

/** What ordering needs of an anchor message (immutable once the message exists). */
interface AnchorFact {
  id: string;
  createdAt: number;
}

/**
 * Where each anchor of a session first appears among its checkpoints, up to `lastSeq`. Valid
 * because a live session's checkpoints are append-only and numbered in order (they are deleted
 * only with their session, whose id is never reused).
 */
interface AnchorIndex {
  lastSeq: number;
  firstSeq: Map<string, number>;
}

const anchorIndexes = new WeakMap<Store, Map<string, AnchorIndex>>();
const anchorFacts = new WeakMap<Store, Map<string, AnchorFact>>();

function anchorIndexOf(store: Store, sessionId: string): AnchorIndex {
  let sessions = anchorIndexes.get(store);
  if (!sessions) anchorIndexes.set(store, (sessions = new Map()));
  let index = sessions.get(sessionId);
  if (!index) sessions.set(sessionId, (index = { lastSeq: 0, firstSeq: new Map() }));
  return index;
}

function anchorFactsOf(store: Store): Map<string, AnchorFact> {
  let facts = anchorFacts.get(store);
  if (!facts) anchorFacts.set(store, (facts = new Map()));
  return facts;
}

/** Adds checkpoints read from the store (oldest first); ones already counted (a concurrent call) are skipped. */
function learn(index: AnchorIndex, checkpoints: readonly Checkpoint[]): void {
  for (const checkpoint of checkpoints) {
    if (checkpoint.seq <= index.lastSeq) continue;
    index.lastSeq = checkpoint.seq;
    const anchor = checkpoint.anchorMessageId;
    if (anchor !== null && !index.firstSeq.has(anchor)) index.firstSeq.set(anchor, checkpoint.seq);
  }
}

/**
 * Looks up the anchors not known yet, in one query without their parts; when one of them is gone,
 * one by one. A message that is not found is not remembered (asked again next time).
 */
async function lookUpAnchors(store: Store, facts: Map<string, AnchorFact>, ids: Iterable<string>): Promise<void> {
  const unknown = [...new Set(ids)].filter((id) => !facts.has(id));
  if (unknown.length === 0) return;
  let found: Message[];
  try {
    found = await store.getMessages(unknown, { parts: 'none' });
  } catch (error) {
    if (!WaypointError.is(error, 'MESSAGE_NOT_FOUND')) throw error;
    found = [];
    for (const id of unknown) {
      const message = await store.findMessage(id);
      if (message) found.push(message);
    }
  }
  for (const message of found) facts.set(message.id, { id: message.id, createdAt: message.createdAt });
}

/** A turn's checkpoints, oldest first, after checking the turn belongs to the session (when given). */
export async function checkpointsOfTurn(store: Store, turnId: string, sessionId?: string): Promise<{ sessionId: string; checkpoints: Checkpoint[] }> {
  const turn = await store.getTurn(turnId);
  if (sessionId !== undefined && turn.sessionId !== sessionId) {
    throw new ConflictError({
      code: 'TURN_NOT_IN_SESSION',
      message: `Turn ${turnId} belongs to session ${turn.sessionId}, not ${sessionId}. Nothing was changed.`,
      details: { turnId, sessionId, turnSessionId: turn.sessionId },
    });
  }
  return { sessionId: turn.sessionId, checkpoints: await store.listCheckpoints(turn.sessionId, { turnId }) };
}

/** `ids` in the order `newestFirst` has them. */
export function orderLike(newestFirst: Checkpoint[], ids: string[]): string[] {
  const wanted = new Set(ids);
  return newestFirst.filter((checkpoint) => wanted.has(checkpoint.id)).map((checkpoint) => checkpoint.id);
}

/** Whether two id lists are the same, in the same order. */
export function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}
