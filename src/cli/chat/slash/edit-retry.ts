import { listRewindTargets } from '../../../history/index.js';
import { InvalidArgumentError } from '../../../model/index.js';
import type { ChatContext, SlashCommand } from '../chat-context.js';

async function lastInput(context: ChatContext) {
  const target = (await listRewindTargets(context.waypoint.store, context.sessionId)).at(-1);
  if (!target)
    throw new InvalidArgumentError({
      code: 'NOTHING_TO_EDIT',
      parameter: 'session',
      value: context.sessionId,
      reason: 'this session has no input yet; type a message first.',
    });
  return target;
}

async function sendEdit(context: ChatContext, messageId: string, text: string): Promise<void> {
  const { io, waypoint, runtime, sessionId } = context;
  if (text.trim() === '') return void io.print(io.style.dim('Edit cancelled: the new text is empty.'));
  const changed = (await waypoint.store.listCheckpoints(sessionId)).some((checkpoint) => checkpoint.anchorMessageId === messageId);
  let workspace: 'preserve' | 'rewind' = 'preserve';
  if (changed) {
    const choice = await io.pick({
      title: 'That turn changed files. Before sending the edited input:',
      items: [
        { label: "Undo the turn's file changes first (refused if a file changed since)", value: 'rewind' as const },
        { label: 'Keep the files as they are', value: 'preserve' as const },
        { label: 'Cancel', value: null },
      ],
    });
    if (choice === null) return void io.print(io.style.dim('Edit cancelled; nothing was changed.'));
    workspace = choice;
  }
  await context.launch('edit', async () => (await runtime.edit({ sessionId, messageId, text: text.trim(), workspace })).turn);
}

/** `/edit [text]`: change the last input and run the turn again; without text the input is put in the prompt to edit. */
export const editCommand: SlashCommand = {
  name: 'edit',
  usage: '/edit [new text]',
  summary: 'change your last input and run it again (without text: edit it in the prompt)',
  async run(context, args) {
    const target = await lastInput(context);
    if (args.trim() !== '') return sendEdit(context, target.messageId, args);
    context.io.print(context.io.style.dim('Edit your last input and press Enter to send it (a line starting with / cancels).'));
    context.captureNextLine('edit› ', (line) => sendEdit(context, target.messageId, line));
    context.io.setDraft(target.text);
  },
};

/** `/retry`: run the last turn again with the same input (its reply is replaced; the old one stays in the tree). */
export const retryCommand: SlashCommand = {
  name: 'retry',
  usage: '/retry',
  summary: 'run your last input again for a new reply',
  async run(context) {
    const { waypoint, runtime, sessionId } = context;
    const reply = (await waypoint.store.history(sessionId, { parts: 'none', roles: ['assistant'], last: 1 })).at(-1);
    if (!reply) throw new InvalidArgumentError({ code: 'NOTHING_TO_RETRY', parameter: 'session', value: sessionId, reason: 'there is no reply to retry yet.' });
    await context.launch('retry', async () => (await runtime.retry({ sessionId, messageId: reply.id })).turn);
  },
};
