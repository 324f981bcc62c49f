import { WaypointError } from '../../../model/index.js';
import { renderFileResult } from '../../render/rewind-render.js';
import type { SlashCommand } from '../chat-context.js';
import { CHAT_UNDO_HINT, checkedRewind } from './checked-rewind.js';

/** `/undo`: the file changes of the last turn that made any, checked and resolved, then applied. The conversation stays. */
export const undoCommand: SlashCommand = {
  name: 'undo',
  usage: '/undo',
  summary: 'undo the file changes of the last turn (conflicts: merge or overwrite); the conversation stays',
  async run(context) {
    const { io, runtime, sessionId } = context;
    let turnId: string;
    try {
      const found = await runtime.previewRewind({ sessionId, lastTurn: true, includeShellChanges: true });
      turnId = (found.target as { turnId: string }).turnId;
    } catch (error) {
      if (WaypointError.is(error, 'NOTHING_TO_UNDO')) return void io.print(error.message);
      throw error;
    }
    const outcome = await checkedRewind(context, {
      preview: (choices) => runtime.previewRewind({ sessionId, turnId, ...choices }),
      apply: async (preview) => (await runtime.applyRewind({ sessionId, preview })).files!,
      confirm: "Undo these changes of the last turn's files?",
    });
    if (outcome.kind === 'nothing') io.print("Nothing to undo: the last turn's changes were made by shell commands only, and you chose to keep them.");
    if (outcome.kind !== 'applied') return;
    for (const line of renderFileResult(outcome.result, { undoHint: CHAT_UNDO_HINT })) io.print(line);
    if (outcome.result.rewindId) context.redoStack.push({ kind: 'files', sessionId, rewindId: outcome.result.rewindId });
  },
};
