import { InvalidArgumentError, NotFoundError, type MessageWithParts, type Session } from '../../model/index.js';
import { isOnActivePath, isUserInput } from '../../history/index.js';
import type { Store } from '../../store/store.js';

export type RewindScope = 'conversation' | 'workspace' | 'both';

/**
 * The user input a conversation rewind goes back to. A user input on the active path is its own
 * target. With `mapAssistant` (retry, conversation scope) an assistant or tool message maps to the
 * user input of its turn; otherwise — and always for `both`/`cascade` — any other kind is refused.
 */
export async function resolveUserTarget(store: Store, session: Session, messageId: string, options: { mapAssistant: boolean }): Promise<MessageWithParts> {
  const message = await store.getMessage(messageId, { parts: 'full' });
  if (!(await isOnActivePath(store, session, message))) {
    throw new InvalidArgumentError({
      parameter: 'messageId',
      value: messageId,
      code: 'REWIND_TARGET_NOT_ON_PATH',
      reason: `message ${messageId} is not on the active conversation of session ${session.id} (it was cut off by an earlier rewind, or belongs to another session); list targets with /rewind.`,
    });
  }
  if (isUserInput(message)) return message;
  // A summary is no reply, whoever recorded it (the runtime as a user message, another caller as an assistant one).
  if (options.mapAssistant && message.kind !== 'summary' && (message.role === 'assistant' || message.role === 'tool')) {
    const input = await turnInput(store, session, message);
    if (input) return input;
  }
  throw new InvalidArgumentError({
    parameter: 'messageId',
    value: messageId,
    code: 'REWIND_TARGET_NOT_USER_INPUT',
    reason: `message ${messageId} is a ${message.role} ${message.kind} message; a rewind goes back to a message the user typed${options.mapAssistant ? '' : ' (only a conversation-only rewind maps a reply to its question)'}.`,
  });
}

/** The user input that started the turn `message` belongs to, walking back on the path. */
async function turnInput(store: Store, session: Session, message: MessageWithParts): Promise<MessageWithParts | null> {
  if (message.turnId) {
    try {
      const turn = await store.getTurn(message.turnId);
      const input = await store.getMessage(turn.userMessageId);
      if (input.depth < message.depth && (await isOnActivePath(store, session, input))) return input;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  const before = await store.history(session.id, { toDepth: message.depth, parts: 'none' });
  for (let index = before.length - 1; index >= 0; index--) {
    if (isUserInput(before[index]!)) return store.getMessage(before[index]!.id);
  }
  return null;
}
