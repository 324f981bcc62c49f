import { parseInput, PreviewObjectSchema, SessionRewindApplyOptionsSchema, SessionRewindOptionsSchema } from '../rewind-entry-schemas.js';
import { timingMark } from '../files/apply-timing.js';
import { InvalidArgumentError, type Session } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import { planConversationRewind, rewindConversation, type ConversationRewind } from '../conversation/rewind-conversation.js';
import { resolveUserTarget, type RewindScope } from '../conversation/rewind-target.js';
import { stopTasksOrFail, type TaskRegistry } from '../conversation/task-registry.js';
import type { FileRewinder } from '../files/file-rewinder.js';
import type { ApplyOptions, FileRewindPreview, FileRewindResult } from '../files/file-rewind-types.js';
import type { DirectRewindPreview, OverwriteChanged } from '../files/direct-rewind-plan.js';
import { inputText } from '../../history/index.js';

export interface SessionRewindOptions {
  sessionId: string;
  messageId: string;
  scope: RewindScope;
  /** Every checkpoint from the message on (`/rewind cascade <scope> <id>`), not only the latest of that message. */
  cascade?: boolean;
  tasks?: TaskRegistry;
  /** Which files changed since the agent wrote them may be overwritten (see `ApplyOptions`; default: any). */
  overwriteChanged?: OverwriteChanged;
}

export interface SessionRewindResult {
  scope: RewindScope;
  /** Null when the conversation did not move (workspace scope). */
  conversation: { session: Session; draft: string; targetMessageId: string } | null;
  files: FileRewindResult | null;
}

/**
 * The direct rewinds of the `/rewind` forms, across both halves:
 * - `conversation`: head back before the input (a reply maps to its turn's input);
 * - `workspace`: the latest checkpoint of that message (`/rewind code`), or with `cascade` every
 *   checkpoint from the message on;
 * - `both`: the files first and then the conversation, in **one** commit — the head move rides in
 *   the file rewind's journal commit, so when the files cannot be rewound the conversation does not
 *   move either. `both` and `cascade` refuse a target that is not a user input.
 */
export async function rewindSession(store: Store, files: FileRewinder, options: SessionRewindOptions): Promise<SessionRewindResult> {
  parseInput(SessionRewindOptionsSchema, options, 'options');
  const session = await store.getSession(options.sessionId);
  if (options.scope === 'conversation' && !options.cascade) {
    const result = await rewindConversation(store, {
      sessionId: session.id,
      messageId: options.messageId,
      mapAssistant: true,
      ...(options.tasks ? { tasks: options.tasks } : {}),
    });
    return { scope: 'conversation', conversation: summary(result), files: null };
  }
  const target = await resolveUserTarget(store, session, options.messageId, { mapAssistant: false });
  if (options.scope === 'conversation') {
    // `cascade conversation`: the conversation alone, with the stricter target rule.
    const result = await rewindConversation(store, { sessionId: session.id, messageId: target.id, ...(options.tasks ? { tasks: options.tasks } : {}) });
    return { scope: 'conversation', conversation: summary(result), files: null };
  }
  const overwrite: ApplyOptions = options.overwriteChanged === undefined ? {} : { overwriteChanged: options.overwriteChanged };
  if (options.scope === 'workspace') {
    const result = options.cascade ? await files.cascade(session.id, target.id, overwrite) : await files.restoreMessage(session.id, target.id, overwrite);
    return { scope: 'workspace', conversation: null, files: result };
  }
  timingMark('target');
  const plan = await planConversationRewind(store, session, target, 'rewind');
  await stopTasksOrFail(options.tasks, session.id, plan.cutTurns);
  timingMark('conv-plan');
  const apply: ApplyOptions = { ...overwrite, onCommit: () => ({ headMoves: [plan.move] }) };
  const result = options.cascade ? await files.cascade(session.id, target.id, apply) : await files.restoreMessage(session.id, target.id, apply);
  timingMark('files');
  const moved = await store.getSession(session.id);
  options.tasks?.setGeneration(session.id, moved.branchGeneration);
  timingMark('moved-session');
  return { scope: 'both', conversation: { session: moved, draft: inputText(target), targetMessageId: target.id }, files: result };
}

/** What {@link previewSessionRewind} found: where the conversation would go, and what the files would do. */
export interface SessionRewindPreview {
  scope: RewindScope;
  /** Null when the conversation would not move (workspace scope). */
  conversation: { targetMessageId: string; draft: string; headMessageId: string | null; cutMessages: number } | null;
  /** Null when no file is touched (conversation scope). */
  files: DirectRewindPreview | null;
}

/**
 * What {@link rewindSession} would do with the same options, by the same target rules and file
 * planner; changes nothing (no task is stopped, no file read beyond what the plan needs).
 */
export async function previewSessionRewind(store: Store, files: FileRewinder, options: SessionRewindOptions): Promise<SessionRewindPreview> {
  parseInput(SessionRewindOptionsSchema, options, 'options');
  const session = await store.getSession(options.sessionId);
  const mapAssistant = options.scope === 'conversation' && !options.cascade;
  const target = await resolveUserTarget(store, session, options.messageId, { mapAssistant });
  let conversation: SessionRewindPreview['conversation'] = null;
  if (options.scope !== 'workspace') {
    const plan = await planConversationRewind(store, session, target, 'rewind');
    conversation = {
      targetMessageId: target.id,
      draft: inputText(target),
      headMessageId: target.parentId,
      cutMessages: Number(plan.move.data?.cutMessages ?? 0),
    };
  }
  const filePreview =
    options.scope === 'conversation'
      ? null
      : await files.previewDirect(session.id, options.cascade ? { kind: 'cascade', messageId: target.id } : { kind: 'message', messageId: target.id }, {
          overwriteChanged: options.overwriteChanged ?? false,
        });
  return { scope: options.scope, conversation, files: filePreview };
}

/**
 * Preview-then-apply for `both`: `preview` the files from the message on (conflicts, merge/force
 * choices), then `applySessionRewind` applies them and moves the head in the same commit.
 */
export async function applySessionRewind(
  store: Store,
  files: FileRewinder,
  preview: FileRewindPreview,
  options: { messageId: string; tasks?: TaskRegistry; reason?: 'rewind' | 'edit' },
): Promise<SessionRewindResult> {
  parseInput(PreviewObjectSchema, preview, 'preview');
  parseInput(SessionRewindApplyOptionsSchema, options, 'options');
  const session = await store.getSession(preview.sessionId);
  const target = await resolveUserTarget(store, session, options.messageId, { mapAssistant: false });
  if (!('messageId' in preview.target) || preview.target.messageId !== target.id) {
    throw new InvalidArgumentError({
      parameter: 'preview',
      value: preview.target,
      code: 'PREVIEW_TARGET_MISMATCH',
      reason: `the preview was made for ${JSON.stringify(preview.target)}, not for message ${target.id}; preview that message first.`,
    });
  }
  const plan = await planConversationRewind(store, session, target, options.reason ?? 'rewind');
  await stopTasksOrFail(options.tasks, session.id, plan.cutTurns);
  const result = await files.apply(preview, { onCommit: () => ({ headMoves: [plan.move] }) });
  const moved = await store.getSession(session.id);
  options.tasks?.setGeneration(session.id, moved.branchGeneration);
  return { scope: 'both', conversation: { session: moved, draft: inputText(target), targetMessageId: target.id }, files: result };
}

function summary(result: ConversationRewind): SessionRewindResult['conversation'] {
  return { session: result.session, draft: result.draft, targetMessageId: result.target.id };
}
