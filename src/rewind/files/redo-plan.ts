import type { Workspace } from '../../workspace/index.js';
import { readDisk, type ContentState } from './disk-state.js';
import { RewindConflictError, SnapshotMissingError, type MissingSnapshot, type RewindConflictFile } from './errors/index.js';
import type { AppliedFileRewind } from './file-rewind-types.js';
import { pairMoves, type PlannedStep } from './rewind-plan.js';
import { describeMismatch } from './rewind-simulation.js';
import type { SnapshotReader } from './snapshot-reader.js';

/**
 * The writes that undo an applied rewind (or redo): every file it changed back to its content
 * before it. A file changed since is a conflict unless resolved with `force`; a content that
 * cannot be read gives up whole (`SNAPSHOT_MISSING`). Moves run first.
 */
export async function planRedo(rewind: AppliedFileRewind, workspace: Workspace, snapshots: SnapshotReader, resolutions: Readonly<Record<string, 'force'>>): Promise<PlannedStep[]> {
  await snapshots.prefetch(rewind.files.map((file) => file.fromHash).filter((hash): hash is string => hash !== null));
  const steps: PlannedStep[] = [];
  const conflicts: RewindConflictFile[] = [];
  const missing: MissingSnapshot[] = [];
  for (const file of rewind.files) {
    const disk = readDisk(workspace, file.path);
    if (!disk.ok) {
      conflicts.push({ path: file.path, status: 'file_read_failed', reason: disk.reason });
      continue;
    }
    const current = disk.state;
    const force = resolutions[file.path] === 'force';
    if ((current.hash !== file.toHash || current.exists !== (file.toHash !== null)) && !force) {
      conflicts.push({ path: file.path, status: 'external_modified', reason: describeMismatch(current.hash, file.toHash) });
      continue;
    }
    let target: ContentState = { exists: false, hash: null, content: null, mode: null };
    if (file.fromHash !== null) {
      const read = await snapshots.read(file.fromHash);
      if (!read.ok) {
        missing.push({ checkpointId: rewind.rewindId, path: file.path, hash: file.fromHash, reason: read.reason });
        continue;
      }
      target = { exists: true, hash: file.fromHash, content: read.content, mode: file.fromMode };
    }
    if (current.hash === target.hash && current.exists === target.exists && (target.mode === null || target.mode === current.mode)) continue;
    steps.push({ path: file.path, resolved: disk.resolved, expected: current, target, moveFrom: null, resolution: force ? 'force' : null });
  }
  if (missing.length > 0) throw new SnapshotMissingError({ snapshots: missing });
  if (conflicts.length > 0) throw new RewindConflictError({ files: conflicts, hint: 'Resolve each file with "force" to overwrite it (its current content is kept), or leave the rewind in place.' });
  pairMoves(steps);
  return [...steps.filter((step) => step.moveFrom !== null), ...steps.filter((step) => step.moveFrom === null)];
}
