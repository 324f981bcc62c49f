import { InvalidArgumentError } from '../../../model/index.js';
import { checkpointDiff, renderDiff } from '../../render/checkpoint-diff.js';
import { colorDiff } from '../../render/git-patch.js';
import type { SlashCommand } from '../chat-context.js';

/** `/diff [checkpointId]`: what the last turn that changed files did to them (or one checkpoint), as unified diffs. */
export const diffCommand: SlashCommand = {
  name: 'diff',
  usage: '/diff [checkpointId]',
  summary: 'the file changes of the last turn that made any (or one checkpoint) as diffs',
  async run(context, args) {
    const { store } = context.waypoint;
    const id = args.trim();
    let ids: string[];
    if (id !== '') {
      const checkpoint = await store.getCheckpoint(id);
      if (checkpoint.sessionId !== context.sessionId) {
        throw new InvalidArgumentError({
          code: 'CHECKPOINT_NOT_IN_SESSION',
          parameter: 'checkpointId',
          value: id,
          reason: `it was recorded by session ${checkpoint.sessionId}, not this one (${context.sessionId}).`,
        });
      }
      ids = [id];
    } else {
      const checkpoints = await store.listCheckpoints(context.sessionId);
      const lastTurn = checkpoints.at(-1)?.turnId ?? null;
      ids = checkpoints.filter((checkpoint) => checkpoint.turnId === lastTurn).map((checkpoint) => checkpoint.id);
      if (ids.length === 0) return void context.io.print('No file changes in this session yet.');
    }
    for (const checkpointId of ids)
      for (const line of colorDiff(renderDiff(await checkpointDiff(context.waypoint, checkpointId)), context.io.style)) context.io.print(line);
  },
};
