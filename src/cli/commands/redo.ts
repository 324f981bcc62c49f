import { redo, type RedoResult } from '../../operations/index.js';
import { keyValueFlags } from '../args.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint } from '../command.js';
import { renderFileResult } from '../render/rewind-render.js';

export const redoFlags = {
  resolve: {
    type: 'string',
    value: 'path=force',
    multiple: true,
    description: 'overwrite a file changed since the rewind (its current content is kept); repeatable',
  },
} as const;

export function renderRedo(report: RedoResult): string[] {
  if (report.type === 'conversation') return [`Conversation redone: the head is back at ${report.headMessageId ?? '(empty history)'}.`];
  const lines = renderFileResult(report.result, { verb: `Redid ${report.rewindId}: put back` });
  if (report.conversation) lines.push(`Conversation redone: the head is back at ${report.conversation.headMessageId ?? '(empty history)'}.`);
  return lines;
}

export const redoCommand = defineCommand({
  name: 'redo',
  synopsis: ['redo <session>', 'redo <session> <rewindId> [--resolve <path>=force]…'],
  summary: 'undo a rewind: the latest conversation rewind, or a file rewind by id',
  description: ['File rewind ids are printed by `rewind` and listed by `rewind <session> status`. A redo is itself a file rewind, so it can be redone too.'],
  flags: redoFlags,
  positionals: { min: 1, max: 2 },
  async run(context, args) {
    const [sessionId, rewindId] = args.positionals as [string, string | undefined];
    const force = keyValueFlags('resolve', args.flags.resolve, ['force'] as const).map(({ key }) => key);
    if (force.length > 0 && rewindId === undefined)
      throw new UsageError('--resolve works with a file rewind id (`redo <session> <rewindId>`)', { command: 'redo' });
    const report = await withWaypoint(context, (waypoint) => redo({ waypoint }, { sessionId, ...(rewindId === undefined ? {} : { rewindId }), force }));
    return { data: report, text: renderRedo(report) };
  },
});
