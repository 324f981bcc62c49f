import { renderFileResult } from '../../render/rewind-render.js';
import type { ChatContext, RedoAction, SlashCommand } from '../chat-context.js';

/** What to redo when this chat made no rewind yet (after a restart): the conversation rewind, else the newest file rewind. */
async function fromStore(context: ChatContext): Promise<RedoAction | null> {
  const status = await context.runtime.rewindStatus(context.sessionId);
  if (status.redo.conversation) return { kind: 'conversation', sessionId: context.sessionId };
  const newest = status.redo.fileRewinds[0];
  return newest ? { kind: 'files', sessionId: context.sessionId, rewindId: newest.rewindId } : null;
}

/** `/redo`: undo the last rewind — its files, its conversation move, or both. */
export const redoCommand: SlashCommand = {
  name: 'redo',
  usage: '/redo',
  summary: 'undo the last rewind or /undo (files and conversation come back)',
  async run(context) {
    const { io, runtime } = context;
    const action = context.redoStack.pop() ?? (await fromStore(context));
    if (action === null) {
      io.print('Nothing to redo: no rewind of this session is waiting to be undone.');
      return;
    }
    let result;
    try {
      result = await runtime.redo(
        action.kind === 'conversation'
          ? { sessionId: action.sessionId }
          : { sessionId: action.sessionId, rewindId: action.rewindId, conversation: action.kind === 'both' },
      );
    } catch (error) {
      context.redoStack.push(action);
      throw error;
    }
    if (result.type === 'files')
      for (const line of renderFileResult(result.result, { verb: 'Redone: put back', undoHint: 'Undo this again with /rewind or /undo.' })) io.print(line);
    const conversation = result.type === 'conversation' ? result : result.conversation;
    if (conversation) {
      io.print(`Conversation redone: it continues from ${conversation.headMessageId ?? '(empty history)'} again.`);
      io.setDraft('');
    }
  },
};
