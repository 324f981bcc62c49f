import { ConflictError, InvalidArgumentError, type MessageWithParts, type Session } from '../../model/index.js';
import { inputText, isUserInput } from '../../history/index.js';
import type { Store } from '../../store/store.js';
import { rewindConversation } from '../conversation/rewind-conversation.js';
import type { TaskRegistry } from '../conversation/task-registry.js';
import type { FileRewinder } from '../files/file-rewinder.js';
import type { FileRewindPreview } from '../files/file-rewind-types.js';
import { applySessionRewind } from './session-rewind.js';

/** Starts the new turn once the rewind committed (the runtime's turn loop). */
export type StartTurn<T> = (text: string, session: Session) => Promise<T>;

export interface EditOptions<T> {
  sessionId: string;
  /** The last turn's user input. */
  messageId: string;
  text: string;
  /** `preserve` (default): only the conversation rewinds. `rewind`: the turn's file changes are undone first. */
  workspace?: 'preserve' | 'rewind';
  files?: FileRewinder;
  tasks?: TaskRegistry;
  startTurn: StartTurn<T>;
}

export interface EditResult<T> {
  session: Session;
  /** The file preview that was applied (workspace `rewind`). */
  preview: FileRewindPreview | null;
  turn: T;
}

/**
 * Edit and resend the last turn's user input. With `workspace: 'rewind'`
 * the turn's file changes are previewed first and the edit is refused — with its own code, the
 * preview attached — when a file is unsafe (`EDIT_FILES_UNSAFE`), when the turn changed files that
 * were not captured exactly (shell commands, a partially protected turn: `EDIT_FILES_UNCAPTURED`)
 * or when it changed no file (`EDIT_NOTHING_TO_UNDO`); otherwise the files are restored and the head
 * moves inside the same commit. Then the new turn starts with the new text.
 */
export async function editUserQuery<T>(store: Store, options: EditOptions<T>): Promise<EditResult<T>> {
  const session = await store.getSession(options.sessionId);
  const target = await requireLastInput(store, session, options.messageId);
  if (options.text.trim() === '') {
    throw new InvalidArgumentError({ parameter: 'text', value: options.text, reason: 'the edited message is empty; type the new request.' });
  }
  if ((options.workspace ?? 'preserve') === 'preserve') {
    const { session: rewound } = await rewindConversation(store, {
      sessionId: session.id,
      messageId: target.id,
      reason: 'edit',
      ...(options.tasks ? { tasks: options.tasks } : {}),
    });
    return { session: rewound, preview: null, turn: await options.startTurn(options.text, rewound) };
  }
  if (!options.files) {
    throw new InvalidArgumentError({ parameter: 'files', value: null, reason: "workspace 'rewind' needs a FileRewinder to undo the turn's file changes." });
  }
  const preview = await options.files.preview({ sessionId: session.id, messageId: target.id });
  await refuseUnsafeEdit(store, preview, target);
  const { conversation } = await applySessionRewind(store, options.files, preview, {
    messageId: target.id,
    reason: 'edit',
    ...(options.tasks ? { tasks: options.tasks } : {}),
  });
  const rewound = conversation!.session;
  return { session: rewound, preview, turn: await options.startTurn(options.text, rewound) };
}

/**
 * Retry the last reply: the original input is resolved *before* the head
 * moves (afterwards it is off the path), the conversation rewinds before it, and the turn runs again
 * with the same text. Only the final reply of the last turn can be retried.
 */
export async function retryTurn<T>(
  store: Store,
  options: { sessionId: string; messageId: string; tasks?: TaskRegistry; startTurn: StartTurn<T> },
): Promise<{ session: Session; text: string; turn: T }> {
  const session = await store.getSession(options.sessionId);
  const [last] = await store.history(session.id, { last: 1, parts: 'none' });
  const reply = await store.getMessage(options.messageId, { parts: 'none' });
  if (!last || last.id !== reply.id || reply.role !== 'assistant' || reply.kind === 'summary') {
    throw new ConflictError({
      code: 'RETRY_NOT_LAST_REPLY',
      message: `Only the last reply can be retried; ${options.messageId} is ${last?.id === reply.id ? (reply.kind === 'summary' ? 'a compaction summary' : `a ${reply.role} message`) : 'not the last message of the conversation'}. Use /rewind to go further back.`,
      details: { sessionId: session.id, messageId: options.messageId, lastMessageId: last?.id ?? null },
    });
  }
  const rewound = await rewindConversation(store, {
    sessionId: session.id,
    messageId: reply.id,
    mapAssistant: true,
    reason: 'retry',
    ...(options.tasks ? { tasks: options.tasks } : {}),
  });
  return { session: rewound.session, text: rewound.draft, turn: await options.startTurn(rewound.draft, rewound.session) };
}

async function requireLastInput(store: Store, session: Session, messageId: string): Promise<MessageWithParts> {
  const inputs = await store.history(session.id, { roles: ['user'], parts: 'none' });
  const last = inputs.filter(isUserInput).at(-1);
  if (!last || last.id !== messageId) {
    await store.getMessage(messageId, { parts: 'none' }); // unknown ids are MESSAGE_NOT_FOUND
    throw new ConflictError({
      code: 'EDIT_NOT_LAST_INPUT',
      message: `Only the last turn's message can be edited; ${messageId} is ${last ? `not the latest input (that is ${last.id})` : 'not an input of this conversation'}. Use /rewind to go further back.`,
      details: { sessionId: session.id, messageId, lastInputId: last?.id ?? null },
    });
  }
  return store.getMessage(messageId);
}

async function refuseUnsafeEdit(store: Store, preview: FileRewindPreview, target: MessageWithParts): Promise<void> {
  const refuse = (code: string, reason: string) =>
    new ConflictError({
      code,
      message: `Cannot edit with workspace rewind: ${reason}. Nothing was changed; edit with workspace 'preserve' to keep the files.`,
      details: { preview },
    });
  const turn = target.turnId ? await store.getTurn(target.turnId).catch(() => null) : null;
  if (preview.shellChanges.length > 0 || turn?.metadata.partiallyProtected === true) {
    throw refuse(
      'EDIT_FILES_UNCAPTURED',
      `the turn changed files through shell commands${turn?.metadata.partiallyProtected ? ' and not every change was captured' : ''} (${preview.shellChanges.map((change) => change.path).join(', ') || 'partially protected turn'})`,
    );
  }
  if (preview.checkpointIds.length === 0) throw refuse('EDIT_NOTHING_TO_UNDO', 'the turn changed no file');
  const unsafe = preview.files.filter((file) => file.status !== 'safe');
  if (unsafe.length > 0 || !preview.canApply) {
    throw refuse('EDIT_FILES_UNSAFE', `${unsafe.map((file) => `${file.path} is ${file.status}`).join(', ') || preview.blockers.join('; ')}`);
  }
}

/** The text of the last user input, e.g. to prefill an edit box. */
export async function lastInputText(store: Store, sessionId: string): Promise<string | null> {
  const inputs = await store.history(sessionId, { roles: ['user'], parts: 'none' });
  const last = inputs.filter(isUserInput).at(-1);
  return last ? inputText(await store.getMessage(last.id)) : null;
}
