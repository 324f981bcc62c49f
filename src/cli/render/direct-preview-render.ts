import type { DirectRewindPreviewResult } from '../../operations/index.js';
import type { ChangedFile, DirectRewindPreview } from '../../rewind/index.js';
import { oneLine, plural, shortPath, table } from './format.js';

/** The files a direct rewind would overwrite although they changed since the agent wrote them, one line each. */
export function renderChangedFiles(changed: readonly ChangedFile[]): string[] {
  return [
    `${plural(changed.length, 'file')} changed since the agent wrote ${changed.length === 1 ? 'it' : 'them'}; the rewind would overwrite ${changed.length === 1 ? 'it' : 'them'} (what ${changed.length === 1 ? 'it holds' : 'they hold'} now is kept for redo):`,
    ...changed.flatMap((file) => [`  ${shortPath(file.path)}`, `      ${file.reason}`]),
  ];
}

function fileLines(files: DirectRewindPreview): string[] {
  const lines = [
    `Files: undo ${plural(files.checkpointIds.length, 'change')} (${files.kind === 'cascade' ? 'every change from that input on, newest first' : 'one change'})`,
  ];
  if (files.files.length === 0) lines.push('  (no file to change)');
  const rows = files.files.map((file) => [
    `  ${shortPath(file.path)}`,
    file.status,
    file.action === 'move' && file.movedFrom ? `move back from ${shortPath(file.movedFrom)}` : file.action,
    file.resolution === 'force' ? 'overwritten (forced)' : file.status === 'external_modified' ? 'asks first (or --force)' : '',
  ]);
  table(rows).forEach((row, index) => {
    lines.push(row);
    const reason = files.files[index]!.reason;
    if (reason) lines.push(`      ${reason}`);
  });
  if (files.shellChanges.length > 0) {
    lines.push('changes made by shell commands (a direct rewind undoes them too):');
    for (const change of files.shellChanges)
      lines.push(`  ${change.op} ${shortPath(change.path)}${change.toPath ? ` → ${shortPath(change.toPath)}` : ''}  (${change.checkpointId})`);
  }
  return lines;
}

/** `rewind … --preview` of a direct form: the conversation move, each file, and the command that does it. */
export function renderDirectPreview(report: DirectRewindPreviewResult, command: string): string[] {
  const lines = [`Preview of: ${command}`];
  if (report.conversation) {
    lines.push(
      `Conversation: back to before ${report.conversation.targetMessageId} (${plural(report.conversation.cutMessages, 'message')} leave the active path; redo brings them back); the head would be ${report.conversation.headMessageId ?? '(empty history)'}.`,
      `  the input, to edit and send again: ${JSON.stringify(oneLine(report.conversation.draft, 80))}`,
    );
  }
  if (report.files) lines.push(...fileLines(report.files));
  const files = report.files;
  if (files) {
    const unconfirmed = files.files.filter((file) => file.status === 'external_modified' && file.resolution === null).length;
    const only = files.blockers.length === unconfirmed;
    lines.push(`can apply: ${files.canApply ? 'yes' : only ? 'once you confirm (or with --force)' : 'no'}`);
    for (const blocker of files.blockers) lines.push(`  - ${blocker}`);
    if (files.canApply) lines.push(`Run it without --preview: ${command}`);
    else if (only) lines.push(`Run it without --preview to be asked (on a terminal), or add --force: ${command} --force`);
  } else {
    lines.push(`No file is changed. Run it without --preview: ${command}`);
  }
  return lines;
}
