import { parseInput, RewindConversationOptionsSchema } from '../rewind-entry-schemas.js';
import type { EventBus, Message, MessageWithParts, Session } from '../../model/index.js';
import { inputText } from '../../history/index.js';
import type { MoveHeadInput, Store } from '../../store/store.js';
import type { ConversationEvents } from './conversation-events.js';
import { resolveUserTarget } from './rewind-target.js';
import { stopTasksOrFail, type TaskRegistry } from './task-registry.js';

export interface RewindConversationOptions {
  sessionId: string;
  /** A user input on the active path (or, with `mapAssistant`, a reply of the turn to retry). */
  messageId: string;
  /** Conversation-only rewinds (and retry) map an assistant message to its turn's input. */
  mapAssistant?: boolean;
  tasks?: TaskRegistry;
  events?: EventBus<ConversationEvents>;
  /** Extra fields for the head-move entry. */
  reason?: 'rewind' | 'edit' | 'retry';
}

export interface ConversationRewind {
  session: Session;
  /** The user input rewound to; it and everything after it left the active path. */
  target: MessageWithParts;
  /** The input as typed, to put back in the input box. */
  draft: string;
  /** Head before the rewind (what `redoConversation` returns to). */
  previousHead: string | null;
  stoppedTasks: string[];
}

/** The head move of a conversation rewind, and the turns it cuts (whose tasks must stop first). */
export interface ConversationRewindPlan {
  move: MoveHeadInput;
  cutTurns: Set<string>;
}

/**
 * Plans the head move back to just before `target` (compare-and-set on the current head, branch
 * generation bumped). `rewindConversation` commits it alone; a combined rewind commits it inside
 * the file rewind's journal commit.
 */
export async function planConversationRewind(
  store: Store,
  session: Session,
  target: Pick<Message, 'id' | 'depth' | 'parentId'>,
  reason: 'rewind' | 'edit' | 'retry',
): Promise<ConversationRewindPlan> {
  const cut = await store.history(session.id, { fromDepth: target.depth, parts: 'none' });
  return {
    move: {
      sessionId: session.id,
      to: target.parentId,
      expectedFrom: session.headMessageId,
      reason,
      bumpGeneration: true,
      data: { targetMessageId: target.id, cutMessages: cut.length },
    },
    cutTurns: new Set(cut.map((message) => message.turnId).filter((turnId): turnId is string => turnId !== null)),
  };
}

/**
 * Rewinds the conversation to just before a user input: the head moves to the input's parent
 * (nothing is deleted; the cut messages stay in the tree and a redo brings them back), the branch
 * generation is bumped, and the input's text is returned as a draft. Background tasks started in
 * the turns being cut are stopped first; if one cannot be stopped, nothing changes.
 */
export async function rewindConversation(store: Store, options: RewindConversationOptions): Promise<ConversationRewind> {
  parseInput(RewindConversationOptionsSchema, options, 'options');
  const session = await store.getSession(options.sessionId);
  const target = await resolveUserTarget(store, session, options.messageId, { mapAssistant: options.mapAssistant ?? false });
  const plan = await planConversationRewind(store, session, target, options.reason ?? 'rewind');
  const stoppedTasks = await stopTasksOrFail(options.tasks, session.id, plan.cutTurns);
  const { session: rewound } = await store.moveHead(plan.move);
  options.tasks?.setGeneration(session.id, rewound.branchGeneration);
  const draft = inputText(target);
  options.events?.emit('rewind-trigger', {
    session: rewound,
    scope: 'conversation',
    strategy: 'active_chain',
    targetMessageId: target.id,
    fromMessageId: session.headMessageId,
    draft,
  });
  return { session: rewound, target, draft, previousHead: session.headMessageId, stoppedTasks };
}
