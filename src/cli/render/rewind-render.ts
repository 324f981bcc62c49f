import type { FileRewindPreview, FileRewindResult, PreviewFile, RewoundFile } from '../../rewind/index.js';
import { plural, shortPath, table } from './format.js';
import { hunksOf } from './git-patch.js';

/**
 * What a merge would change in a file as it is now: the hunks of the diff from its current content
 * to the merged text (a few lines for a small change, whatever the file's size), indented.
 */
export function mergeDiffLines(file: Pick<PreviewFile, 'mergePatch' | 'mergedText'>, indent: string): string[] {
  if (file.mergePatch === null) return [`${indent}(too large to show as a diff)`];
  const hunks = hunksOf(file.mergePatch);
  return hunks.length === 0 ? [`${indent}(no change to the file as it is now)`] : hunks.map((line) => `${indent}${line}`);
}

/** A file rewind preview: each file's status, what applying does, merge availability and what the merge changes. */
export function renderPreview(preview: FileRewindPreview, options: { nextStep?: string } = {}): string[] {
  const target = 'messageId' in preview.target ? `message ${preview.target.messageId} on (its turn and every later one)` : `turn ${preview.target.turnId}`;
  const lines = [`Preview: undo ${plural(preview.checkpointIds.length, 'file change')} from ${target}`];
  if (preview.files.length === 0) lines.push('  (no file to change)');
  const rows = preview.files.map((file) => [
    `  ${shortPath(file.path)}`,
    file.status,
    file.action === 'move' && file.movedFrom ? `move back from ${shortPath(file.movedFrom)}` : file.action,
    file.resolution ? `resolved: ${file.resolution}` : file.mergeAvailable ? 'merge available' : '',
  ]);
  const rendered = table(rows);
  preview.files.forEach((file, index) => {
    lines.push(rendered[index]!);
    if (file.reason) lines.push(`      ${file.reason}`);
    if (file.mergedText !== null && (file.mergeAvailable || file.resolution === 'merge')) {
      lines.push(
        `      ${file.resolution === 'merge' ? 'the merge changes the file as it is now' : `with --resolve ${shortPath(file.path)}=merge, the file as it is now changes`}:`,
      );
      lines.push(...mergeDiffLines(file, '      '));
    }
  });
  if (preview.shellChanges.length > 0) {
    const included = preview.shellChanges.some((change) => change.included);
    lines.push(`changes made by shell commands (${included ? 'included' : 'not included; add --include-shell to undo them too'}):`);
    for (const change of preview.shellChanges)
      lines.push(`  ${change.op} ${shortPath(change.path)}${change.toPath ? ` → ${shortPath(change.toPath)}` : ''}  (${change.checkpointId})`);
  }
  if (preview.alreadyRewound.length > 0) lines.push(`already rewound, not offered again: ${plural(preview.alreadyRewound.length, 'change')}`);
  lines.push(`can apply: ${preview.canApply ? 'yes' : 'no'}`);
  for (const blocker of preview.blockers) lines.push(`  - ${blocker}`);
  if (options.nextStep) lines.push(options.nextStep);
  return lines;
}

/** What an applied file rewind (or redo) changed, and how to undo it (`undoHint`: the CLI's `waypoint redo` line by default; null for none). */
export function renderFileResult(result: FileRewindResult, options: { verb?: string; undoHint?: string | null } = {}): string[] {
  const verb = options.verb ?? 'Restored';
  const skipped = result.skipped?.length ? [`Skipped, left as they are: ${result.skipped.map(shortPath).join(', ')}`] : [];
  if (result.rewindId === null || result.files.length === 0) return ['Files: already as asked; nothing was written.', ...skipped];
  const lines = [`${verb} ${plural(result.files.length, 'file')} (${plural(result.checkpointIds.length, 'change')} undone):`];
  lines.push(...table(result.files.map((file) => [`  ${shortPath(file.path)}`, describeFile(file), file.resolution ? `(${file.resolution})` : ''])));
  lines.push(...skipped);
  const hint = options.undoHint === undefined ? `Undo this with: waypoint redo ${result.sessionId} ${result.rewindId}` : options.undoHint;
  if (hint !== null) lines.push(hint);
  return lines;
}

function describeFile(file: RewoundFile): string {
  if (file.toHash === null) return 'deleted';
  if (file.fromHash === null) return 'recreated';
  return 'restored';
}
