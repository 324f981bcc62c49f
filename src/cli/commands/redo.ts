import type { Waypoint } from '../../engine/index.js';
import { redoConversation, type FileRewindResult } from '../../rewind/index.js';
import { keyValueFlags } from '../args.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, requireWorkspace, withWaypoint } from '../command.js';
import { renderFileResult } from '../render/rewind-render.js';
import { resolutionKeys } from './rewind.js';

export const redoFlags = {
  resolve: { type: 'string', value: 'path=force', multiple: true, description: 'overwrite a file changed since the rewind (its current content is kept); repeatable' },
} as const;

export type RedoReport =
  | { type: 'files'; sessionId: string; rewindId: string; result: FileRewindResult }
  | { type: 'conversation'; sessionId: string; headMessageId: string | null; branchGeneration: number };

/**
 * With a rewind id: undo that file rewind (the files return to what they held before it; a file
 * changed since is a conflict unless forced). Without: undo the latest conversation rewind.
 */
export async function redo(waypoint: Waypoint, sessionId: string, rewindId?: string, options: { force?: string[] } = {}): Promise<RedoReport> {
  const session = await waypoint.store.getSession(sessionId);
  if (rewindId === undefined) {
    const moved = await redoConversation(waypoint.store, session.id);
    return { type: 'conversation', sessionId: session.id, headMessageId: moved.headMessageId, branchGeneration: moved.branchGeneration };
  }
  requireWorkspace(session);
  const resolutions = resolutionKeys(session, Object.fromEntries((options.force ?? []).map((path) => [path, 'force' as const])));
  const result = await waypoint.files.redo(session.id, rewindId, { resolutions: resolutions as Record<string, 'force'> });
  return { type: 'files', sessionId: session.id, rewindId, result };
}

export function renderRedo(report: RedoReport): string[] {
  if (report.type === 'conversation') return [`Conversation redone: the head is back at ${report.headMessageId ?? '(empty history)'}.`];
  return renderFileResult(report.result, { verb: `Redid ${report.rewindId}: put back` });
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
    if (force.length > 0 && rewindId === undefined) throw new UsageError('--resolve works with a file rewind id (`redo <session> <rewindId>`)', { command: 'redo' });
    const report = await withWaypoint(context, (waypoint) => redo(waypoint, sessionId, rewindId, { force }));
    return { data: report, text: renderRedo(report) };
  },
});
