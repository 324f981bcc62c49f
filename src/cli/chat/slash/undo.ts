import { renderFileResult } from '../../render/rewind-render.js';
import type { ChatContext, SlashCommand } from '../chat-context.js';
import { CHAT_UNDO_HINT, checkedRewind } from './checked-rewind.js';

/** The newest turn of the session with file changes not already undone (null: none in the last 50 turns). */
async function lastTurnWithChanges(context: ChatContext): Promise<string | null> {
  const turns = await context.waypoint.store.listTurns(context.sessionId);
  for (const turn of turns.slice(-50).reverse()) {
    const preview = await context.waypoint.files.preview({ sessionId: context.sessionId, turnId: turn.id, includeShellChanges: true });
    if (preview.checkpointIds.length > 0) return turn.id;
  }
  return null;
}

/** `/undo`: the file changes of the last turn that made any, checked and resolved, then applied. The conversation stays. */
export const undoCommand: SlashCommand = {
  name: 'undo',
  usage: '/undo',
  summary: "undo the file changes of the last turn (conflicts: merge or overwrite); the conversation stays",
  async run(context) {
    const { io, waypoint, sessionId } = context;
    const turnId = await lastTurnWithChanges(context);
    if (turnId === null) {
      io.print('Nothing to undo: no turn of this session has file changes left to undo.');
      return;
    }
    const outcome = await checkedRewind(context, {
      preview: (choices) => waypoint.files.preview({ sessionId, turnId, ...choices }),
      apply: (preview) => waypoint.files.apply(preview),
      confirm: "Undo these changes of the last turn's files?",
    });
    if (outcome.kind === 'nothing') io.print("Nothing to undo: the last turn's changes were made by shell commands only, and you chose to keep them.");
    if (outcome.kind !== 'applied') return;
    for (const line of renderFileResult(outcome.result, { undoHint: CHAT_UNDO_HINT })) io.print(line);
    if (outcome.result.rewindId) context.redoStack.push({ kind: 'files', sessionId, rewindId: outcome.result.rewindId });
  },
};
