import { ConflictError, InvalidArgumentError, type Checkpoint, type Message, type Session } from '../../model/index.js';
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
 */
export async function checkpointsFromMessage(store: Store, session: Session, message: Message): Promise<Checkpoint[]> {
  const all = await store.listCheckpoints(session.id);
  const anchors = new Map<string, Message | null>();
  for (const checkpoint of all) {
    const anchor = checkpoint.anchorMessageId;
    if (anchor !== null && !anchors.has(anchor)) anchors.set(anchor, await store.findMessage(anchor));
  }
  const atOrAfter = (anchor: Message | null | undefined): boolean =>
    !!anchor && (anchor.id === message.id || anchor.createdAt > message.createdAt || (anchor.createdAt === message.createdAt && anchor.id > message.id));
  const start = all.find((checkpoint) => checkpoint.anchorMessageId !== null && atOrAfter(anchors.get(checkpoint.anchorMessageId)));
  return start ? all.filter((checkpoint) => checkpoint.seq >= start.seq) : [];
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
