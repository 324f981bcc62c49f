import { z } from 'zod';
import { displayPath, type ListedCheckpoint } from '../checkpoint/index.js';
import { listRewindTargets, type RewindTarget } from '../history/index.js';
import { parseInput } from '../model/index.js';
import { findRedo, listPreserved, type PreservedSave } from '../rewind/index.js';
import { RewindLedger } from '../rewind/files/rewind-ledger.js';
import type { OperationContext } from './operation-context.js';
import { Id } from './session-checks.js';

export const RewindStatusRequest = z.object({ sessionId: Id }).strict();
export type RewindStatusRequest = z.input<typeof RewindStatusRequest>;

/** Where a session stands for rewinding: what `latest` restores, the inputs to rewind to, and what can be redone. */
export interface RewindStatus {
  type: 'status';
  sessionId: string;
  /** The newest checkpoint not already rewound (what a `latest` rewind restores); null when none. */
  latestCheckpoint: ListedCheckpoint | null;
  checkpointCount: number;
  /** The user inputs on the active path, oldest first, with the file changes their turns recorded. */
  targets: Array<RewindTarget & { fileChanges: number }>;
  redo: {
    /** The conversation rewind a redo without id would undo (null: none). */
    conversation: { rewindEntryId: string; headReturnsTo: string | null } | null;
    /** File rewinds not redone yet, newest first. */
    fileRewinds: Array<{ rewindId: string; kind: string; files: number; createdAt: number }>;
  };
  /** Saves a refused rewind found on a path and kept aside (someone wrote the path again at that instant); `restorePreserved` puts one back. */
  preserved: PreservedSave[];
}

/**
 * Reads where a session stands for rewinding. Changes nothing.
 *
 * @example
 * const status = await rewindStatus({ waypoint }, { sessionId });
 * if (status.redo.conversation) await redo({ waypoint }, { sessionId });
 */
export async function rewindStatus(context: OperationContext, request: RewindStatusRequest): Promise<RewindStatus> {
  const input = parseInput(RewindStatusRequest, request, 'request');
  const { store } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  const [all, targets, ledger, redo, preserved] = await Promise.all([
    store.listCheckpoints(session.id),
    listRewindTargets(store, session.id),
    RewindLedger.load(store, session.id),
    findRedo(store, session.id),
    listPreserved(store, session.id),
  ]);
  const rewound = ledger.rewoundCheckpoints();
  const latest = all.filter((checkpoint) => !rewound.has(checkpoint.id)).at(-1) ?? null;
  const recent: ListedCheckpoint | null = latest && {
    ...latest,
    displayPath: displayPath(latest.path),
    displayToPath: latest.toPath === null ? null : displayPath(latest.toPath),
  };
  const perMessage = new Map<string, number>();
  for (const checkpoint of all)
    if (checkpoint.anchorMessageId) perMessage.set(checkpoint.anchorMessageId, (perMessage.get(checkpoint.anchorMessageId) ?? 0) + 1);
  return {
    type: 'status',
    sessionId: session.id,
    latestCheckpoint: recent,
    checkpointCount: all.length,
    targets: targets.map((target) => ({ ...target, fileChanges: perMessage.get(target.messageId) ?? 0 })),
    redo: {
      conversation: redo ? { rewindEntryId: redo.rewind.id, headReturnsTo: redo.to } : null,
      fileRewinds: ledger.rewinds
        .filter((entry) => !entry.redone)
        .reverse()
        .map((entry) => ({
          rewindId: entry.rewindId,
          kind: entry.action === 'redo' ? `redo of ${entry.undoes ?? '?'}` : entry.kind,
          files: entry.files.length,
          createdAt: entry.createdAt,
        })),
    },
    preserved,
  };
}
