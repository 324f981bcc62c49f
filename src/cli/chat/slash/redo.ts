import type { ConflictResolution } from '../../../rewind/index.js';
import { shortPath } from '../../render/format.js';
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
    const skip: string[] = [];
    try {
      // A file redo is previewed first: each file changed since the rewind gets the undo's choices.
      const resolutions: Record<string, ConflictResolution> = {};
      if (action.kind !== 'conversation') {
        const preview = await runtime.previewRedo({ sessionId: action.sessionId, rewindId: action.rewindId });
        // Other statuses (a snapshot gone, a path unusable) have no choice: the redo refuses them, typed.
        for (const file of preview.files.filter((entry) => entry.status === 'external_modified')) {
          const choice = await io.pick<ConflictResolution | 'skip' | 'cancel'>({
            title: `${shortPath(file.path)} changed since the rewind. What should the redo do with it?`,
            items: [
              ...(file.mergeAvailable ? [{ label: "Merge: undo the rewind's change and keep the later edits", value: 'merge' as const }] : []),
              { label: 'Overwrite with the version before the rewind (what is there now is kept)', value: 'force' as const },
              { label: 'Skip: leave this file as it is, redo the rest', value: 'skip' as const },
              { label: 'Cancel: change nothing', value: 'cancel' as const },
            ],
          });
          if (choice === null || choice === 'cancel') {
            context.redoStack.push(action);
            return void io.print(io.style.dim('Redo cancelled; nothing was changed.'));
          }
          if (choice === 'skip') skip.push(file.path);
          else resolutions[file.path] = choice;
        }
      }
      result = await runtime.redo(
        action.kind === 'conversation'
          ? { sessionId: action.sessionId }
          : { sessionId: action.sessionId, rewindId: action.rewindId, conversation: action.kind === 'both', resolutions, skip },
      );
    } catch (error) {
      context.redoStack.push(action);
      throw error;
    }
    if (result.type === 'files') {
      for (const line of renderFileResult(result.result, { verb: 'Redone: put back', undoHint: 'Undo this again with /rewind or /undo.' })) io.print(line);
      if (skip.length > 0) io.print(io.style.dim(`Left as they are: ${skip.map(shortPath).join(', ')}.`));
    }
    const conversation = result.type === 'conversation' ? result : result.conversation;
    if (conversation) {
      io.print(`Conversation redone: it continues from ${conversation.headMessageId ?? '(empty history)'} again.`);
      io.setDraft('');
    }
  },
};
