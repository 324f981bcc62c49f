import type { Entry, MessageWithParts, Session } from '../model/index.js';

/** Events of the history layer, emitted only after their transaction committed. */
export interface HistoryEvents {
  'session-create': { session: Session };
  'session-fork': { session: Session; parentSessionId: string; at: string | null };
  'session-title': { session: Session };
  'message-append': { sessionId: string; message: MessageWithParts };
  'head-move': { session: Session; entry: Entry };
}
