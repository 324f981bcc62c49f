import type { SlashCommand } from '../chat-context.js';

/** `/compact [instructions]`: the model summarizes the conversation; it is sent the summary from now on. */
export const compactCommand: SlashCommand = {
  name: 'compact',
  usage: '/compact [instructions]',
  summary: 'summarize the conversation for the model to free its context (you still see it all; /rewind undoes it)',
  async run(context, args) {
    context.io.print(context.io.style.dim('Compacting the conversation…'));
    const instructions = args.trim();
    await context.runtime.compact(context.sessionId, instructions === '' ? {} : { instructions });
  },
};
