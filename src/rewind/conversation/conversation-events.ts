import type { Session } from '../../model/index.js';

/** Events of conversation rewinds, emitted only after the head move committed. */
export interface ConversationEvents {
  'rewind-trigger': {
    session: Session;
    scope: 'conversation';
    strategy: 'active_chain';
    targetMessageId: string;
    /** The head before the rewind; `redo` returns to it. */
    fromMessageId: string | null;
    draft: string;
  };
  'rewind-redo': { session: Session; toMessageId: string | null };
}
