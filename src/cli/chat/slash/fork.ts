import type { ForkRequest } from '../../../fork/index.js';
import type { ForkSessionResult } from '../../../operations/index.js';
import { InvalidArgumentError } from '../../../model/index.js';
import { renderFork } from '../../commands/fork.js';
import { plural, shortPath } from '../../render/format.js';
import type { ChatContext, SlashCommand } from '../chat-context.js';
import { listRecentCheckpoints } from '../../../checkpoint/index.js';

/** Where `/fork` forks from: `latest`, a checkpoint id, a message id, or (no argument) a checkpoint picked from the list. */
async function forkPoint(context: ChatContext, arg: string): Promise<ForkRequest | null> {
  const sessionId = context.sessionId;
  if (arg.startsWith('msg_')) return { from: 'message', sessionId, messageId: arg };
  if (arg !== '') return { from: 'checkpoint', sessionId, checkpointId: arg };
  const checkpoints = await listRecentCheckpoints(context.waypoint.store, sessionId, { limit: 50 });
  const picked = await context.io.pick({
    title: 'Fork from before which file change? (the new session starts from the input that made it)',
    items: checkpoints.map((checkpoint) => ({
      label: `${checkpoint.op} ${checkpoint.displayPath}${checkpoint.displayToPath ? ` → ${checkpoint.displayToPath}` : ''}`,
      detail: `${checkpoint.id} · by ${checkpoint.source === 'exec' ? 'a shell command' : (checkpoint.toolName ?? checkpoint.source)}`,
      value: checkpoint.id,
    })),
    empty: 'No workspace checkpoint is available yet: nothing to fork from. (/fork <messageId> forks at a message.)',
  });
  return picked === null ? null : { from: 'checkpoint', sessionId, checkpointId: picked };
}

/** `/fork [latest|<checkpointId>|<messageId>]`: a new session at that point; the chat switches to it. */
export const forkCommand: SlashCommand = {
  name: 'fork',
  usage: '/fork [latest|<checkpointId>|<messageId>]',
  summary: 'branch into a new session at a checkpoint or message, and switch to it',
  async run(context, args) {
    const { io, runtime } = context;
    const arg = args.trim();
    if (/\s/.test(arg))
      throw new InvalidArgumentError({
        code: 'USAGE',
        parameter: 'fork',
        value: arg,
        reason: 'give one fork point: /fork, /fork latest, /fork <checkpointId> or /fork <messageId>.',
      });
    const request = await forkPoint(context, arg);
    if (request === null) return void io.print(io.style.dim('Fork cancelled.'));
    const preview = await runtime.previewFork(request);
    let final: ForkRequest = request;
    if (preview.requiresConfirmation && preview.files) {
      const files = preview.files.files.map((file) => `${shortPath(file.path)} (${file.action}${file.status === 'safe' ? '' : `, ${file.status}`})`);
      io.print(`Forking there means ${plural(files.length, 'file')} of this directory go back to the fork point: ${files.join(', ')}.`);
      const choice = await io.pick({
        title: 'Where should the new session work?',
        items: [
          { label: 'In a copy of the workspace at the fork point (this directory stays as it is)', value: 'isolated' as const },
          { label: 'Here: put these files back (what they hold now is kept; /redo in this session brings it back)', value: 'shared' as const },
          { label: 'Cancel', value: null },
        ],
      });
      if (choice === null) return void io.print(io.style.dim('Fork cancelled; nothing was changed.'));
      final = choice === 'isolated' ? { ...request, workspace: { mode: 'isolated' } } : { ...request, confirm: true };
    }
    const bar = final.workspace?.mode === 'isolated' ? io.progress('  copying the workspace') : null;
    let result: ForkSessionResult;
    try {
      result = await runtime.fork({ ...final, ...(bar ? { onProgress: (done: number, total: number) => bar.update(done, total) } : {}) });
    } finally {
      bar?.done();
    }
    const parentId = context.sessionId;
    for (const line of renderFork(result, { undoHint: `/resume ${parentId} then /redo brings the parent's files back.`, nextSteps: false })) io.print(line);
    context.switchTo(result.session, `Now in ${result.session.id} "${result.session.title}". /resume ${parentId} goes back.`);
  },
};

function sideCommandOf(name: string): SlashCommand {
  return {
    name,
    usage: `/${name} <question>`,
    summary: name === 'side' ? 'ask a side question in a side chat (sees this conversation; changes nothing here)' : 'same as /side',
    async run(context, args) {
      const question = args.trim();
      if (question === '') throw new InvalidArgumentError({ code: 'USAGE', parameter: name, value: args, reason: `ask a question: /${name} <question>.` });
      const { io, runtime } = context;
      const parentId = context.sessionId;
      const side = await runtime.fork({ from: 'side-chat', sessionId: parentId, question });
      io.print(io.style.accent(`── side chat ${side.session.id} ──`));
      await context.launch('side chat', async () => {
        try {
          return await runtime.runTurn(side.session.id, question);
        } finally {
          io.print(io.style.accent(`── back in ${parentId}; /resume ${side.session.id} continues the side chat ──`));
        }
      });
    },
  };
}

export const sideCommand = sideCommandOf('side');
export const btwCommand = sideCommandOf('btw');
