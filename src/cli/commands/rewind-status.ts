import { displayPath, type ListedCheckpoint } from '../../checkpoint/index.js';
import type { Waypoint } from '../../engine/index.js';
import { listRewindTargets, type RewindTarget } from '../../history/index.js';
import { findRedo } from '../../rewind/index.js';
import { RewindLedger } from '../../rewind/files/rewind-ledger.js';
import { oneLine, plural, table } from '../render/format.js';

export interface RewindStatusReport {
  type: 'status';
  sessionId: string;
  /** The newest checkpoint not already rewound (what `rewind <session> latest` restores); null when none. */
  latestCheckpoint: ListedCheckpoint | null;
  checkpointCount: number;
  /** The user inputs on the active path, oldest first, with the file changes their turns recorded. */
  targets: Array<RewindTarget & { fileChanges: number }>;
  redo: {
    /** The conversation rewind `waypoint redo <session>` would undo (null: none). */
    conversation: { rewindEntryId: string; headReturnsTo: string | null } | null;
    /** File rewinds not redone yet, newest first (`waypoint redo <session> <rewindId>`). */
    fileRewinds: Array<{ rewindId: string; kind: string; files: number; createdAt: number }>;
  };
}

/** `/rewind status`: the latest checkpoint (seed 001), plus the rewind targets and what can be redone. */
export async function rewindStatus(waypoint: Waypoint, sessionId: string): Promise<RewindStatusReport> {
  const { store } = waypoint;
  const session = await store.getSession(sessionId);
  const [all, targets, ledger, redo] = await Promise.all([
    store.listCheckpoints(session.id),
    listRewindTargets(store, session.id),
    RewindLedger.load(store, session.id),
    findRedo(store, session.id),
  ]);
  const rewound = ledger.rewoundCheckpoints();
  const latest = all.filter((checkpoint) => !rewound.has(checkpoint.id)).at(-1) ?? null;
  const recent: ListedCheckpoint | null = latest && { ...latest, displayPath: displayPath(latest.path), displayToPath: latest.toPath === null ? null : displayPath(latest.toPath) };
  const perMessage = new Map<string, number>();
  for (const checkpoint of all) if (checkpoint.anchorMessageId) perMessage.set(checkpoint.anchorMessageId, (perMessage.get(checkpoint.anchorMessageId) ?? 0) + 1);
  return {
    type: 'status',
    sessionId: session.id,
    latestCheckpoint: recent,
    checkpointCount: all.length,
    targets: targets.map((target) => ({ ...target, fileChanges: perMessage.get(target.messageId) ?? 0 })),
    redo: {
      conversation: redo ? { rewindEntryId: redo.rewind.id, headReturnsTo: redo.to } : null,
      fileRewinds: ledger.rewinds
        .filter((rewind) => !rewind.redone)
        .reverse()
        .map((rewind) => ({ rewindId: rewind.rewindId, kind: rewind.action === 'redo' ? `redo of ${rewind.undoes ?? '?'}` : rewind.kind, files: rewind.files.length, createdAt: rewind.createdAt })),
    },
  };
}

export function renderRewindStatus(report: RewindStatusReport): string[] {
  const id = report.sessionId;
  const lines: string[] = [];
  const latest = report.latestCheckpoint;
  if (latest) {
    lines.push(`Latest checkpoint: #${latest.seq} ${latest.id}  ${latest.op} ${displayPath(latest.path)}  by ${latest.source === 'exec' ? 'a shell command' : latest.toolName ?? latest.source}${latest.anchorMessageId ? `  (message ${latest.anchorMessageId})` : ''}`);
    lines.push(`  restore it: waypoint rewind ${id} latest`);
  } else {
    lines.push(report.checkpointCount === 0 ? 'No file checkpoints yet.' : 'Every file change is already rewound.');
  }
  lines.push('', report.targets.length ? 'Rewind targets (user inputs, oldest first):' : 'No user input to rewind to.');
  lines.push(...table(report.targets.map((target) => [`  ${target.messageId}`, JSON.stringify(oneLine(target.text, 60)), target.fileChanges ? plural(target.fileChanges, 'file change') : 'no file changes', target.compacted ? '(compacted)' : ''])));
  if (report.redo.conversation || report.redo.fileRewinds.length) {
    lines.push('', 'Can be redone:');
    if (report.redo.conversation) lines.push(`  the last conversation rewind: waypoint redo ${id}`);
    for (const rewind of report.redo.fileRewinds) lines.push(`  file rewind ${rewind.rewindId} (${rewind.kind}, ${plural(rewind.files, 'file')}): waypoint redo ${id} ${rewind.rewindId}`);
  }
  lines.push(
    '',
    'Forms:',
    `  waypoint rewind ${id} latest | <checkpointId>         restore a checkpoint's file`,
    `  waypoint rewind ${id} conversation <messageId>        the conversation, to before that input`,
    `  waypoint rewind ${id} code <messageId>                that input's latest file change`,
    `  waypoint rewind ${id} both <messageId>                files, then the conversation`,
    `  waypoint rewind ${id} cascade <scope> <messageId>     every change from that input on`,
    '  add --preview to see what a rewind by message does to the files first',
  );
  return lines;
}
