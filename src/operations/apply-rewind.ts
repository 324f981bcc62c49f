import { z } from 'zod';
import { InvalidArgumentError, parseInput } from '../model/index.js';
import { applySessionRewind, type FileRewindPreview } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { conversationMove, type RewindResult } from './rewind-result.js';
import { Id, requireWorkspace } from './session-checks.js';

const isPreview = (value: unknown): value is FileRewindPreview =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { sessionId?: unknown }).sessionId === 'string' &&
  typeof (value as { target?: unknown }).target === 'object';

/**
 * Applies a preview from `previewRewind`, unchanged. `scope: 'workspace'` (default) changes the
 * files only; `both` (a preview by message) also moves the conversation to before that input, in
 * the same commit.
 */
export const ApplyRewindRequest = z
  .object({
    sessionId: Id,
    scope: z.enum(['workspace', 'both']).default('workspace'),
    preview: z.custom<FileRewindPreview>(isPreview, 'pass the preview previewRewind returned'),
  })
  .strict();
export type ApplyRewindRequest = z.input<typeof ApplyRewindRequest>;

/**
 * The checked rewind: every file is re-checked against the preview just before it is written, and
 * a file changed since the agent wrote it blocks (`REWIND_CONFLICT`) unless the preview resolved it
 * (`merge` or `force`). Refused while a turn runs (`TURN_RUNNING`), for a preview of another session
 * (`PREVIEW_SESSION_MISMATCH`) or, with `both`, of a turn (`PREVIEW_TARGET_MISMATCH`); a refusal
 * changes nothing. Emits `rewind` after the commit.
 *
 * @example
 * const preview = await previewRewind({ waypoint }, { sessionId, messageId, resolutions: { 'src/a.ts': 'merge' } });
 * const result = await applyRewind({ waypoint }, { sessionId, preview, scope: 'both' });
 */
export async function applyRewind(context: OperationContext, request: ApplyRewindRequest): Promise<RewindResult> {
  const input = parseInput(ApplyRewindRequest, request, 'request');
  requireIdle(context, input.sessionId, 'rewind');
  const { store, files, tasks } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  const { preview } = input;
  if (preview.sessionId !== session.id) {
    throw new InvalidArgumentError({
      code: 'PREVIEW_SESSION_MISMATCH',
      parameter: 'preview',
      value: preview.sessionId,
      reason: `the preview was made for session ${preview.sessionId}, not ${session.id}; preview this session first.`,
    });
  }
  const messageId = 'messageId' in preview.target ? preview.target.messageId : null;
  if (input.scope === 'both' && messageId === null) {
    throw new InvalidArgumentError({
      code: 'PREVIEW_TARGET_MISMATCH',
      parameter: 'preview',
      value: preview.target,
      reason: 'scope "both" moves the conversation to before an input: preview by messageId, not by turn.',
    });
  }
  requireWorkspace(session);
  const form =
    messageId === null
      ? { kind: 'turn' as const, turnId: (preview.target as { turnId: string }).turnId }
      : { kind: 'message' as const, scope: input.scope, cascade: true, messageId };
  let result: RewindResult;
  if (input.scope === 'both') {
    const done = await applySessionRewind(store, files, preview, { messageId: messageId!, tasks });
    result = { type: 'rewind', sessionId: session.id, form, checked: true, conversation: conversationMove(done.conversation), files: done.files, preview };
  } else {
    result = { type: 'rewind', sessionId: session.id, form, checked: true, conversation: null, files: await files.apply(preview), preview };
  }
  context.events?.emit('rewind', { sessionId: session.id, session: await store.getSession(session.id), result, kind: 'rewind' });
  return result;
}
