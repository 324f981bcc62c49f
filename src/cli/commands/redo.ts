import { previewRedo, redo, type RedoPreview, type RedoResult } from '../../operations/index.js';
import { keyValueFlags } from '../args.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint } from '../command.js';
import { shortPath, table } from '../render/format.js';
import { renderFileResult } from '../render/rewind-render.js';

export const redoFlags = {
  resolve: {
    type: 'string',
    value: 'path=merge|force|skip',
    multiple: true,
    description:
      "a choice for a file changed since the rewind (repeatable): merge (undo the rewind's change, keeping later edits), force (overwrite; kept) or skip (leave it as it is)",
  },
  preview: { type: 'boolean', description: 'with a rewind id: show what the redo does to each file (status, merge, merged text); change nothing' },
} as const;

export function renderRedoPreview(preview: RedoPreview): string[] {
  const lines = [`Preview: redo ${preview.rewindId} (each file back as it was before that rewind)`];
  table(
    preview.files.map((file) => [
      `  ${shortPath(file.path)}`,
      file.status,
      file.action,
      file.resolution ? `resolved: ${file.resolution}` : file.mergeAvailable ? 'merge available' : '',
    ]),
  ).forEach((row, index) => {
    const file = preview.files[index]!;
    lines.push(row);
    if (file.reason) lines.push(`      ${file.reason}`);
    if (file.mergedText !== null) {
      lines.push(`      ${file.resolution === 'merge' ? 'merged text' : `with --resolve ${shortPath(file.path)}=merge it becomes`}:`);
      for (const line of file.mergedText.replace(/\n$/, '').split('\n')) lines.push(`      | ${line}`);
    }
  });
  lines.push(`can apply: ${preview.canApply ? 'yes' : 'no'}`);
  const choices = preview.files
    .filter((file) => file.status === 'external_modified')
    .map((file) => ` --resolve ${shortPath(file.path)}=${file.resolution ?? (file.mergeAvailable ? 'merge' : 'force')}`);
  lines.push(`Redo with: waypoint redo ${preview.sessionId} ${preview.rewindId}${choices.join('')}`);
  return lines;
}

export function renderRedo(report: RedoResult): string[] {
  if (report.type === 'conversation') return [`Conversation redone: the head is back at ${report.headMessageId ?? '(empty history)'}.`];
  const lines = renderFileResult(report.result, { verb: `Redid ${report.rewindId}: put back` });
  if (report.conversation) lines.push(`Conversation redone: the head is back at ${report.conversation.headMessageId ?? '(empty history)'}.`);
  return lines;
}

export const redoCommand = defineCommand({
  name: 'redo',
  synopsis: ['redo <session>', 'redo <session> <rewindId> [--preview] [--resolve <path>=merge|force|skip]…'],
  summary: 'undo a rewind: the latest conversation rewind, or a file rewind by id',
  description: [
    'File rewind ids are printed by `rewind` and listed by `rewind <session> status`. A redo is itself a file rewind, so it can be redone too.',
    'A file changed since the rewind blocks the redo (REWIND_CONFLICT, exit 4) unless resolved, as for undo: --resolve <path>=merge',
    "(undo the rewind's change on the current text, keeping later edits; offered when it applies cleanly) or =force, or left as it is with =skip.",
    '--preview shows each file first.',
  ],
  flags: redoFlags,
  positionals: { min: 1, max: 2 },
  async run(context, args) {
    const [sessionId, rewindId] = args.positionals as [string, string | undefined];
    const choices = keyValueFlags('resolve', args.flags.resolve, ['merge', 'force', 'skip'] as const);
    const resolutions = Object.fromEntries(choices.map(({ key, choice }) => [key, choice]));
    if ((Object.keys(resolutions).length > 0 || args.flags.preview) && rewindId === undefined)
      throw new UsageError('--resolve and --preview work with a file rewind id (`redo <session> <rewindId>`)', { command: 'redo' });
    if (args.flags.preview) {
      const conflicts = Object.fromEntries(choices.flatMap(({ key, choice }) => (choice === 'skip' ? [] : [[key, choice] as const])));
      const preview = await withWaypoint(context, (waypoint) => previewRedo({ waypoint }, { sessionId, rewindId: rewindId!, resolutions: conflicts }));
      return { data: preview, text: renderRedoPreview(preview) };
    }
    const report = await withWaypoint(context, (waypoint) => redo({ waypoint }, { sessionId, ...(rewindId === undefined ? {} : { rewindId }), resolutions }));
    return { data: report, text: renderRedo(report) };
  },
});
