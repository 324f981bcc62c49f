import { z } from 'zod';
import { parseInput, type Session } from '../model/index.js';
import { redoConversation, type ConflictResolution, type FileResolution, type FileRewindResult } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { FileChoices, Id, requireWorkspace, resolutionKeys } from './session-checks.js';

/**
 * Undo a rewind. With `rewindId`: that file rewind (the files return to what they held before it;
 * a file changed since is a conflict unless listed in `force`). Without: the latest conversation
 * rewind. `conversation: true` with a `rewindId` does both (a `both` rewind), files first. A file
 * changed since the rewind is a conflict unless resolved (`force`, or `resolutions` with `merge`)
 * or left out (`skip`: it stays as it is, the rest is redone); `previewRedo` shows each file first.
 */
export const RedoRequest = z
  .object({
    sessionId: Id,
    rewindId: Id.optional(),
    conversation: z.boolean().optional(),
    /** Paths (`src/a.ts` or `root:path`) to overwrite although they changed since the rewind; their content is kept. */
    force: z.array(z.string().min(1)).default([]),
    /**
     * Per-file choices, as for undo: `merge` (undo the rewind's change on the current text, when it
     * applies cleanly), `force`, or `skip` (the same as listing the path in `skip`).
     */
    resolutions: FileChoices.default({}),
    /** Paths to leave as they are: the rest of the rewind is redone. */
    skip: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .refine(
    (request) => request.rewindId !== undefined || (request.force.length === 0 && Object.keys(request.resolutions).length === 0 && request.skip.length === 0),
    {
      message: 'force, resolutions and skip work with a file rewind id (rewindId)',
      path: ['force'],
    },
  )
  .refine((request) => request.rewindId !== undefined || request.conversation !== false, {
    message: 'nothing to redo: give a rewindId or conversation: true',
    path: ['conversation'],
  });
export type RedoRequest = z.input<typeof RedoRequest>;

/** A redo's per-file choices as the file rewinder takes them: `force` paths and `resolutions`, keyed by workspace path. */
export function redoResolutions(session: Session, input: { force: string[]; resolutions: Record<string, FileResolution> }): Record<string, ConflictResolution> {
  const chosen = Object.entries(input.resolutions).filter((entry): entry is [string, ConflictResolution] => entry[1] !== 'skip');
  return resolutionKeys(session, { ...Object.fromEntries(input.force.map((path) => [path, 'force' as const])), ...Object.fromEntries(chosen) });
}

/** Where the head is after a conversation redo. */
export interface ConversationRedo {
  headMessageId: string | null;
  branchGeneration: number;
}

/**
 * What a redo brought back: a file rewind undone (`files`; with `conversation` set when the
 * conversation was redone too), or the latest conversation rewind undone (`conversation`).
 */
export type RedoResult =
  | { type: 'files'; sessionId: string; rewindId: string; result: FileRewindResult; conversation: ConversationRedo | null }
  | ({ type: 'conversation'; sessionId: string } & ConversationRedo);

/**
 * Redoes; a redo is itself a file rewind, so it can be redone too. Refused while a turn runs
 * (`TURN_RUNNING`), with `NOTHING_TO_REDO` when no conversation rewind waits, `REWIND_NOT_FOUND`
 * for an unknown id, `REWIND_CONFLICT` for a file changed since; a refusal changes nothing.
 * Emits `rewind` (kind `redo`) after the commit.
 *
 * @example
 * const undone = await rewind({ waypoint }, { sessionId, kind: 'latest' });
 * await redo({ waypoint }, { sessionId, rewindId: undone.files!.rewindId! });
 */
export async function redo(context: OperationContext, request: RedoRequest): Promise<RedoResult> {
  const input = parseInput(RedoRequest, request, 'request');
  requireIdle(context, input.sessionId, 'redo');
  const { store, files } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  let result: RedoResult;
  if (input.rewindId === undefined) {
    const moved = await redoConversation(store, session.id);
    result = { type: 'conversation', sessionId: session.id, headMessageId: moved.headMessageId, branchGeneration: moved.branchGeneration };
  } else {
    requireWorkspace(session);
    const skipped = [...input.skip, ...Object.keys(input.resolutions).filter((path) => input.resolutions[path] === 'skip')];
    const skip = Object.keys(resolutionKeys(session, Object.fromEntries(skipped.map((path) => [path, 'skip' as const]))));
    const restored = await files.redo(session.id, input.rewindId, { resolutions: redoResolutions(session, input), ...(skip.length > 0 ? { skip } : {}) });
    const moved = input.conversation === true ? await redoConversation(store, session.id) : null;
    result = {
      type: 'files',
      sessionId: session.id,
      rewindId: input.rewindId,
      result: restored,
      conversation: moved && { headMessageId: moved.headMessageId, branchGeneration: moved.branchGeneration },
    };
  }
  context.events?.emit('rewind', { sessionId: session.id, session: await store.getSession(session.id), result, kind: 'redo' });
  return result;
}
