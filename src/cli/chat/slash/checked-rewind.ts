import type { ConflictResolution, FileResolution, FileRewindPreview } from '../../../rewind/index.js';
import { plural, shortPath, table } from '../../render/format.js';
import { mergeDiffLines } from '../../render/rewind-render.js';
import type { ChatContext } from '../chat-context.js';

export interface CheckedRewindFlow<Result> {
  preview(choices: { resolutions: Record<string, FileResolution>; includeShellChanges: boolean }): Promise<FileRewindPreview>;
  apply(preview: FileRewindPreview): Promise<Result>;
  /** Ask before applying a preview with no conflict (default true). */
  confirm?: string;
}

export type CheckedOutcome<Result> = { kind: 'applied'; result: Result; preview: FileRewindPreview } | { kind: 'nothing' } | { kind: 'cancelled' };

/**
 * Preview, choose, apply: shows what the rewind would do to each file; asks whether changes made by
 * shell commands go too; for each file changed since the agent (external_modified), offers merge
 * (only when it applies cleanly), force, skip (leave it as it is) or cancel; then applies the
 * checked preview. Nothing is written before the last choice.
 */
export async function checkedRewind<Result>(context: ChatContext, flow: CheckedRewindFlow<Result>): Promise<CheckedOutcome<Result>> {
  const { io } = context;
  const resolutions: Record<string, FileResolution> = {};
  let includeShellChanges = false;
  let preview = await flow.preview({ resolutions, includeShellChanges });
  if (preview.shellChanges.length > 0 && preview.files.length === 0) {
    // Only shell commands changed files in range: undoing them is the point.
    includeShellChanges = true;
    preview = await flow.preview({ resolutions, includeShellChanges });
  } else if (preview.shellChanges.length > 0) {
    const include = await io.pick({
      title: `${plural(preview.shellChanges.length, 'change')} in range came from shell commands (${preview.shellChanges.map((change) => shortPath(change.path)).join(', ')}). Undo them too?`,
      items: [
        { label: "No: only the agent's own file edits", value: false },
        { label: 'Yes: the shell command changes too', value: true },
      ],
    });
    if (include === null) return cancelled(context);
    if (include) {
      includeShellChanges = true;
      preview = await flow.preview({ resolutions, includeShellChanges });
    }
  }
  if (preview.files.length === 0) return { kind: 'nothing' };
  for (const line of chatPreviewLines(preview)) io.print(line);
  const conflicts = preview.files.filter((file) => file.status !== 'safe' && file.resolution === null);
  for (const file of conflicts) {
    if (file.status !== 'external_modified') {
      io.print(io.style.error(`${shortPath(file.path)} cannot be rewound: ${file.status}${file.reason ? ` (${file.reason})` : ''}. Nothing was changed.`));
      return { kind: 'cancelled' };
    }
    const choice = await io.pick<ConflictResolution | 'skip' | 'cancel'>({
      title: `${shortPath(file.path)} changed after the agent wrote it. What should happen to it?`,
      items: [
        ...(file.mergeAvailable ? [{ label: "Merge: undo the agent's change and keep the later edits", value: 'merge' as const }] : []),
        { label: 'Overwrite with the earlier version (what is there now is kept; /redo brings it back)', value: 'force' as const },
        { label: 'Skip: leave this file as it is, undo the rest', value: 'skip' as const },
        { label: 'Cancel: change nothing', value: 'cancel' as const },
      ],
    });
    if (choice === null || choice === 'cancel') return cancelled(context);
    resolutions[file.path] = choice;
  }
  if (conflicts.length > 0) preview = await flow.preview({ resolutions, includeShellChanges });
  if (!preview.canApply) {
    io.print(io.style.error('Cannot apply this rewind:'));
    for (const blocker of preview.blockers) io.print(io.style.error(`  - ${blocker}`));
    return { kind: 'cancelled' };
  }
  if (conflicts.length === 0 && flow.confirm !== undefined) {
    const go = await io.pick({
      title: flow.confirm,
      items: [
        { label: 'Yes', value: true },
        { label: 'No', value: false },
      ],
    });
    if (!go) return cancelled(context);
  }
  return { kind: 'applied', result: await flow.apply(preview), preview };
}

/** The preview as the chat shows it: each file, what undoing does to it, and whether it changed since the agent. */
export function chatPreviewLines(preview: FileRewindPreview): string[] {
  const scope = 'turnId' in preview.target ? 'of the last turn' : 'from that input on';
  const lines = [`${plural(preview.checkpointIds.length, 'file change')} ${scope} to undo:`];
  const rows = preview.files.map((file) => {
    const effect =
      file.status !== 'safe'
        ? file.status === 'external_modified'
          ? 'changed since the agent wrote it'
          : file.status
        : file.action === 'delete'
          ? 'will be deleted'
          : file.action === 'move'
            ? `moves back from ${shortPath(file.movedFrom ?? '?')}`
            : 'will be restored';
    return [`  ${shortPath(file.path)}`, effect, file.mergeAvailable ? '(merge available)' : ''];
  });
  table(rows).forEach((row, index) => {
    lines.push(row);
    const file = preview.files[index]!;
    if (file.status !== 'safe' && file.status !== 'external_modified' && file.reason) lines.push(`      ${file.reason}`);
    if (file.mergeAvailable && file.mergedText !== null) {
      lines.push('      a merge changes the file as it is now:');
      lines.push(...mergeDiffLines(file, '      '));
    }
  });
  return lines;
}

function cancelled(context: ChatContext): { kind: 'cancelled' } {
  context.io.print(context.io.style.dim('Cancelled; nothing was changed.'));
  return { kind: 'cancelled' };
}

/** How the chat says a file rewind is undone. */
export const CHAT_UNDO_HINT = 'Undo this with /redo.';
