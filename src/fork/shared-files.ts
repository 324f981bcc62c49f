import type { BlobStore } from '../blobs/index.js';
import { sessionWorkspace } from '../checkpoint/session-workspace.js';
import type { Checkpoint, Session } from '../model/index.js';
import { RewindConflictError, type ConflictResolution, type FileRewindPreview, type FileRewindResult, type RewindConflictFile } from '../rewind/index.js';
import { journaledApply } from '../rewind/files/journaled-apply.js';
import { RewindLedger } from '../rewind/files/rewind-ledger.js';
import { computePreview, type ComputedPreview } from '../rewind/files/rewind-preview.js';
import { SnapshotReader } from '../rewind/files/snapshot-reader.js';
import type { JournalCommitWrites, Store } from '../store/store.js';
import type { Workspace } from '../workspace/index.js';

export interface SharedFilesInput {
  store: Store;
  blobs: BlobStore;
  parent: Session;
  /** The parent's checkpoints the fork undoes, oldest first. */
  checkpoints: readonly Checkpoint[];
  /** The message the preview is about (echoed in `preview.target`). */
  targetMessageId: string;
  includeShellChanges: boolean;
  resolutions: Record<string, ConflictResolution>;
  workspace?: Workspace;
}

/**
 * FileRewinder's preview semantics over an arbitrary range of the parent's checkpoints (a fork
 * undoes "this checkpoint and every later one" or "every change after this message", which
 * neither a message nor a turn target expresses). Changes an earlier rewind already undid are not
 * undone twice.
 */
export async function previewSharedFiles(input: SharedFilesInput): Promise<ComputedPreview> {
  const rewound = (await RewindLedger.load(input.store, input.parent.id)).rewoundCheckpoints();
  return computePreview({
    sessionId: input.parent.id,
    target: { messageId: input.targetMessageId },
    checkpoints: input.checkpoints,
    rewound,
    includeShellChanges: input.includeShellChanges,
    resolutions: input.resolutions,
    workspace: input.workspace ?? sessionWorkspace(input.parent, input.store.location),
    snapshots: new SnapshotReader(input.blobs),
  });
}

/** True when the fork must touch the parent's files: a file would be written, or one is in conflict. */
export function changesFiles(preview: FileRewindPreview): boolean {
  return preview.files.some((file) => file.action !== 'none' || (file.status !== 'safe' && file.resolution === null));
}

/**
 * Applies the file part of a shared-workspace fork, re-validated against `seen` (the preview the
 * person confirmed) when given. Journaled, all or nothing, recorded as a `file-rewind` entry of the
 * **parent** (its files and its checkpoints are what changed), so `FileRewinder.redo(parent, rewindId)`
 * brings the overwritten content back. `onCommit` writes commit with the rewind's record.
 */
export async function applySharedFiles(
  input: SharedFilesInput & { seen?: FileRewindPreview | undefined; onCommit?: () => JournalCommitWrites },
): Promise<FileRewindResult> {
  const workspace = input.workspace ?? sessionWorkspace(input.parent, input.store.location);
  const fresh = await previewSharedFiles({ ...input, workspace });
  if (input.seen) {
    const changed: RewindConflictFile[] = [];
    const seen = new Map(input.seen.files.map((file) => [file.path, file.currentHash]));
    for (const file of fresh.preview.files) {
      if (!seen.has(file.path)) changed.push({ path: file.path, status: file.status, reason: 'this file joined the fork after the preview' });
      else if (seen.get(file.path) !== file.currentHash)
        changed.push({ path: file.path, status: 'external_modified', reason: 'the file changed since the preview' });
    }
    const ids = input.seen.checkpointIds;
    if (ids.length !== fresh.preview.checkpointIds.length || ids.some((id, index) => id !== fresh.preview.checkpointIds[index])) {
      changed.push({ path: '(checkpoints)', status: 'external_modified', reason: 'the set of changes to undo is different now' });
    }
    if (changed.length > 0) throw new RewindConflictError({ files: changed, hint: 'Preview the fork again and check the files before confirming.' });
  }
  if (!fresh.preview.canApply) {
    const unsafe = fresh.preview.files.filter((file) => file.status !== 'safe' && file.resolution === null);
    throw new RewindConflictError({
      files: unsafe.length
        ? unsafe.map((file) => ({ path: file.path, status: file.status, reason: file.reason ?? file.status }))
        : fresh.preview.blockers.map((blocker) => ({ path: '(fork)', status: 'blocked', reason: blocker })),
      hint: 'Resolve each conflicting file with "merge" or "force", or fork with an isolated workspace.',
    });
  }
  const { journal, files } = await journaledApply({
    store: input.store,
    blobs: input.blobs,
    workspace,
    sessionId: input.parent.id,
    kind: 'cascade',
    action: 'rewind',
    undoes: null,
    checkpointIds: fresh.simulation.undone,
    steps: fresh.steps,
    onCommit: input.onCommit,
  });
  return { rewindId: journal.id, sessionId: input.parent.id, kind: 'cascade', checkpointIds: fresh.simulation.undone, files };
}
