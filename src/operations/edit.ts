import { z } from 'zod';
import { parseInput } from '../model/index.js';
import { editUserQuery, type EditResult, type StartTurn } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { Id } from './session-checks.js';

/**
 * Replace the last turn's input (`messageId`) with `text` and run the turn again. `workspace:
 * 'preserve'` (default) rewinds only the conversation; `rewind` undoes the turn's file changes
 * first, in the same commit as the head move.
 */
export const EditRequest = z
  .object({
    sessionId: Id,
    messageId: Id,
    text: z.string(),
    workspace: z.enum(['preserve', 'rewind']).default('preserve'),
  })
  .strict();
export type EditRequest = z.input<typeof EditRequest>;

/**
 * Edits and resends. Refused while a turn runs (`TURN_RUNNING`), for anything but the last input
 * (`EDIT_NOT_LAST_INPUT`), an empty text, and with `workspace: 'rewind'` when a file is unsafe
 * (`EDIT_FILES_UNSAFE`), changed by shell commands or not wholly captured (`EDIT_FILES_UNCAPTURED`),
 * or unchanged (`EDIT_NOTHING_TO_UNDO`); a refusal changes nothing. Emits `rewind` (kind `edit`)
 * once the rewind committed, then `startTurn` runs the new turn.
 *
 * @example
 * const edited = await edit({ waypoint }, { sessionId, messageId: inputId, text: 'Pick blue' }, (text, session) => runtime.runTurn(session.id, text));
 */
export async function edit<Turn>(context: OperationContext, request: EditRequest, startTurn: StartTurn<Turn>): Promise<EditResult<Turn>> {
  const input = parseInput(EditRequest, request, 'request');
  requireIdle(context, input.sessionId, 'edit');
  const { store, files, tasks } = context.waypoint;
  return editUserQuery(store, {
    ...input,
    files,
    tasks,
    startTurn: (text, session) => {
      context.events?.emit('rewind', { sessionId: session.id, session, result: null, kind: 'edit' });
      return startTurn(text, session);
    },
  });
}
