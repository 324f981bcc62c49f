import { displayPath } from '../../checkpoint/index.js';
import type { RewindStatus } from '../../operations/index.js';
import { isLinkMode } from '../../workspace/index.js';
import { oneLine, plural, table } from '../render/format.js';

/** `rewind <session> status`: the operation's `RewindStatus`. */
export type RewindStatusReport = RewindStatus;

export function renderRewindStatus(report: RewindStatusReport): string[] {
  const id = report.sessionId;
  const lines: string[] = [];
  const latest = report.latestCheckpoint;
  if (latest) {
    lines.push(
      `Latest checkpoint: #${latest.seq} ${latest.id}  ${latest.op} ${displayPath(latest.path)}  by ${latest.source === 'exec' ? 'a shell command' : (latest.toolName ?? latest.source)}${latest.anchorMessageId ? `  (message ${latest.anchorMessageId})` : ''}`,
    );
    lines.push(`  restore it: waypoint rewind ${id} latest`);
  } else {
    lines.push(report.checkpointCount === 0 ? 'No file checkpoints yet.' : 'Every file change is already rewound.');
  }
  lines.push('', report.targets.length ? 'Rewind targets (user inputs, oldest first):' : 'No user input to rewind to.');
  lines.push(
    ...table(
      report.targets.map((target) => [
        `  ${target.messageId}`,
        JSON.stringify(oneLine(target.text, 60)),
        target.fileChanges ? plural(target.fileChanges, 'file change') : 'no file changes',
        target.compacted ? '(compacted)' : '',
      ]),
    ),
  );
  if (report.redo.conversation || report.redo.fileRewinds.length) {
    lines.push('', 'Can be redone:');
    if (report.redo.conversation) lines.push(`  the last conversation rewind: waypoint redo ${id}`);
    for (const rewind of report.redo.fileRewinds)
      lines.push(`  file rewind ${rewind.rewindId} (${rewind.kind}, ${plural(rewind.files, 'file')}): waypoint redo ${id} ${rewind.rewindId}`);
  }
  const kept = (report.preserved ?? []).filter((save) => !save.restored);
  if (kept.length) {
    const swept = (save: { rewindId: string }) => save.rewindId.startsWith('swp_');
    lines.push(
      '',
      kept.every(swept)
        ? 'Kept aside by `waypoint sweep` (the content of a hidden file a killed write left beside the path):'
        : 'Kept aside by refused rewinds (a save found while a path was compared; a later write replaced it)' +
            (kept.some(swept) ? ' or by `waypoint sweep` (a hidden file a killed write left):' : ':'),
    );
    for (const save of kept)
      lines.push(
        `  ${displayPath(save.path)}${save.mode !== null && isLinkMode(save.mode) ? ' (a symbolic link)' : ''}  ${save.hash.slice(0, 12)}  ${swept(save) ? 'swept' : 'in rewind'} ${save.rewindId}  put it back: waypoint rewind ${id} restore ${save.hash.slice(0, 12)}`,
      );
  }
  lines.push(
    '',
    'Forms:',
    `  waypoint rewind ${id} latest | <checkpointId>         restore a checkpoint's file`,
    `  waypoint rewind ${id} conversation <messageId>        the conversation, to before that input`,
    `  waypoint rewind ${id} code <messageId>                that input's latest file change`,
    `  waypoint rewind ${id} both <messageId>                files, then the conversation`,
    `  waypoint rewind ${id} cascade <scope> <messageId>     every change from that input on`,
    '  add --preview to any form to see what it does first (a file changed since the agent is listed, and asked about)',
  );
  return lines;
}
