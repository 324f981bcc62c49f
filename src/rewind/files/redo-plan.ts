import { sameMode, type ResolvedPath, type Workspace } from '../../workspace/index.js';
import { directoryInWayReason, scanDirectoryInWay } from './directory-in-way.js';
import { ABSENT, holdsVersion, readDisk, type ContentState } from './disk-state.js';
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
export async function planRedo(
  rewind: AppliedFileRewind,
  workspace: Workspace,
  snapshots: SnapshotReader,
  resolutions: Readonly<Record<string, 'force'>>,
): Promise<PlannedStep[]> {
  await snapshots.prefetch(rewind.files.map((file) => file.fromHash).filter((hash): hash is string => hash !== null));
  const steps: PlannedStep[] = [];
  const conflicts: RewindConflictFile[] = [];
  const missing: MissingSnapshot[] = [];
  const inWay = new Map<PlannedStep, ResolvedPath>();
  for (const file of rewind.files) {
    const disk = readDisk(workspace, file.path);
    if (!disk.ok && !(disk.directory && disk.resolved)) {
      conflicts.push({ path: file.path, status: 'file_read_failed', reason: disk.reason });
      continue;
    }
    // A directory counts as no file; it gives way below if the redo empties it.
    const current = disk.ok ? disk.state : ABSENT;
    const resolved = disk.resolved!;
    const force = resolutions[file.path] === 'force';
    if (!holdsVersion(current, file.toHash, file.toMode) && !force) {
      conflicts.push({ path: file.path, status: 'external_modified', reason: describeMismatch(current.hash, file.toHash, current.mode, file.toMode) });
      continue;
    }
    let target: ContentState = { exists: false, hash: null, content: null, mode: null };
    if (file.fromHash !== null) {
      const read = await snapshots.read(file.fromHash);
      if (!read.ok) {
        missing.push({
          checkpointId: rewind.rewindId,
          path: file.path,
          hash: file.fromHash,
          reason: read.reason,
          corrupt: read.status === 'checkpoint_unreadable',
        });
        continue;
      }
      target = { exists: true, hash: file.fromHash, content: read.content, mode: file.fromMode };
    }
    if (holdsVersion(current, target.hash, target.mode) && (target.mode === null || sameMode(target.mode, current.mode))) continue;
    const step: PlannedStep = { path: file.path, resolved, expected: current, target, moveFrom: null, resolution: force ? 'force' : null };
    if (!disk.ok && target.exists) inWay.set(step, resolved);
    steps.push(step);
  }
  const deleted = new Set(steps.filter((step) => !step.target.exists).map((step) => step.path));
  for (const [step, resolved] of inWay) {
    const inside = scanDirectoryInWay(resolved);
    const foreign = [...inside.other, ...inside.files.filter((key) => !deleted.has(key))];
    if (foreign.length > 0) conflicts.push({ path: step.path, status: 'file_read_failed', reason: directoryInWayReason(foreign) });
    else step.replacesDirectories = inside.directories;
  }
  if (missing.length > 0) throw new SnapshotMissingError({ snapshots: missing });
  if (conflicts.length > 0)
    throw new RewindConflictError({
      files: conflicts,
      hint: 'Resolve each file with "force" to overwrite it (its current content is kept), or leave the rewind in place.',
    });
  pairMoves(steps);
  return [...steps.filter((step) => step.moveFrom !== null), ...steps.filter((step) => step.moveFrom === null)];
}
