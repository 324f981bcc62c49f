import { isLinkMode, sameMode, type ResolvedPath, type Workspace } from '../../workspace/index.js';
import { directoryInWayReason, scanDirectoryInWay } from './directory-in-way.js';
import { ABSENT, holdsVersion, readDisk, type ContentState } from './disk-state.js';
import { RewindConflictError, SnapshotMissingError, type MissingSnapshot, type RewindConflictFile } from './errors/index.js';
import { hashContent } from '../../model/index.js';
import type { AppliedFileRewind, ConflictResolution } from './file-rewind-types.js';
import { reverseMerge } from './reverse-merge.js';
import { pairMoves, type PlannedStep } from './rewind-plan.js';
import { describeMismatch } from './rewind-simulation.js';
import type { SnapshotReader } from './snapshot-reader.js';

/** One file of a redo, as a preview shows it: where it stands, and what the redo makes of it. */
export interface RedoFile {
  path: string;
  /** `external_modified`: changed since the rewind wrote it (blocks unless resolved). */
  status: 'safe' | 'external_modified' | 'file_read_failed' | 'checkpoint_missing' | 'checkpoint_unreadable';
  reason: string | null;
  action: 'write' | 'delete' | 'none';
  currentHash: string | null;
  /** Content after the redo (null: absent, or blocked). */
  targetHash: string | null;
  /** Whether `merge` applies cleanly: the rewind's own change undone on the current text. */
  mergeAvailable: boolean;
  mergedText: string | null;
  resolution: ConflictResolution | null;
}

/** What a redo would do, file by file, and the writes when nothing blocks it. */
export interface RedoInspection {
  files: RedoFile[];
  steps: PlannedStep[];
  conflicts: RewindConflictFile[];
  missing: MissingSnapshot[];
}

const NOT_CHANGED = { status: 'safe', action: 'none', targetHash: null, mergeAvailable: false, mergedText: null, resolution: null } as const;

/**
 * Plans undoing an applied rewind (or redo) without writing: every file it changed back to its
 * content before it. A file changed since is `external_modified` unless resolved: `force`
 * overwrites it, `merge` undoes the rewind's own change on the current text (keeping later edits;
 * only when that applies cleanly). Paths in `skip` are left as they are. Moves run first in `steps`.
 */
export async function inspectRedo(
  rewind: AppliedFileRewind,
  workspace: Workspace,
  snapshots: SnapshotReader,
  resolutions: Readonly<Record<string, ConflictResolution>>,
  skip: ReadonlySet<string> = new Set(),
): Promise<RedoInspection> {
  await snapshots.prefetch(rewind.files.flatMap((file) => [file.fromHash, file.toHash]).filter((hash): hash is string => hash !== null));
  const steps: PlannedStep[] = [];
  const files: RedoFile[] = [];
  const conflicts: RewindConflictFile[] = [];
  const missing: MissingSnapshot[] = [];
  const inWay = new Map<PlannedStep, ResolvedPath>();
  const blocked = (file: AppliedFileRewind['files'][number], status: RedoFile['status'], reason: string, currentHash: string | null, merge?: Buffer | null) => {
    files.push({
      path: file.path,
      status,
      reason,
      action: 'none',
      currentHash,
      targetHash: null,
      mergeAvailable: Boolean(merge),
      mergedText: merge ? merge.toString('utf8') : null,
      resolution: null,
    });
  };
  for (const file of rewind.files) {
    if (skip.has(file.path)) {
      // Left as it is, whatever it holds: the rest is redone.
      files.push({ ...NOT_CHANGED, path: file.path, reason: 'skipped: left as it is', currentHash: null });
      continue;
    }
    // A file this process's rewind left with exactly what it wrote is known by its hash (see `readDisk`).
    const disk = readDisk(workspace, file.path, undefined, snapshots.knownByStamp ? file.toHash : null);
    if (!disk.ok && !(disk.directory && disk.resolved)) {
      conflicts.push({ path: file.path, status: 'file_read_failed', reason: disk.reason });
      blocked(file, 'file_read_failed', disk.reason, null);
      continue;
    }
    // A directory counts as no file; it gives way below if the redo empties it.
    const current = disk.ok ? disk.state : ABSENT;
    const resolved = disk.resolved!;
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
        blocked(file, read.status, read.reason, current.hash);
        continue;
      }
      target = { exists: true, hash: file.fromHash, content: read.content, mode: file.fromMode };
    }
    const changed = !holdsVersion(current, file.toHash, file.toMode);
    const resolution = changed ? (resolutions[file.path] ?? null) : null;
    if (changed) {
      const reason = describeMismatch(current.hash, file.toHash, current.mode, file.toMode);
      const merged = await mergeRedo(current, target, file.toHash, snapshots);
      if (resolution === null || (resolution === 'merge' && merged === null)) {
        const why = resolution === 'merge' ? `${reason}, and undoing the rewind's change does not apply cleanly to the current text` : reason;
        conflicts.push({ path: file.path, status: 'external_modified', reason: why });
        blocked(file, 'external_modified', why, current.hash, merged);
        continue;
      }
      if (resolution === 'merge') target = { exists: true, hash: hashContent(merged!), content: merged, mode: file.fromMode ?? current.mode };
    }
    const write = !(holdsVersion(current, target.hash, target.mode) && (target.mode === null || sameMode(target.mode, current.mode)));
    files.push({
      path: file.path,
      status: changed ? 'external_modified' : 'safe',
      reason: changed ? describeMismatch(current.hash, file.toHash, current.mode, file.toMode) : null,
      action: !write ? 'none' : target.exists ? 'write' : 'delete',
      currentHash: current.hash,
      targetHash: target.hash,
      mergeAvailable: resolution === 'merge',
      mergedText: resolution === 'merge' ? target.content!.toString('utf8') : null,
      resolution,
    });
    if (!write) continue;
    const step: PlannedStep = { path: file.path, resolved, expected: current, target, moveFrom: null, resolution };
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
  pairMoves(steps);
  return { files, conflicts, missing, steps: [...steps.filter((step) => step.moveFrom !== null), ...steps.filter((step) => step.moveFrom === null)] };
}

/**
 * The writes that undo an applied rewind (or redo), from {@link inspectRedo}: a file changed since
 * is a conflict unless resolved; a content that cannot be read gives up whole (`SNAPSHOT_MISSING`).
 */
export async function planRedo(
  rewind: AppliedFileRewind,
  workspace: Workspace,
  snapshots: SnapshotReader,
  resolutions: Readonly<Record<string, ConflictResolution>>,
  skip: ReadonlySet<string> = new Set(),
): Promise<PlannedStep[]> {
  const { steps, conflicts, missing } = await inspectRedo(rewind, workspace, snapshots, resolutions, skip);
  if (missing.length > 0) throw new SnapshotMissingError({ snapshots: missing });
  if (conflicts.length > 0)
    throw new RewindConflictError({
      files: conflicts,
      hint: 'Resolve each file with "merge" (keep the later edits; when it applies cleanly) or "force" (overwrite; its current content is kept), or leave the rewind in place.',
    });
  return steps;
}

/** The current text with the rewind's change (its content before → `toHash`) undone, or null. */
async function mergeRedo(current: ContentState, before: ContentState, toHash: string | null, snapshots: SnapshotReader): Promise<Buffer | null> {
  // A link's target text is not merged: a link is replaced whole or not at all.
  if (current.content === null || before.content === null || toHash === null || isLinkMode(current.mode) || isLinkMode(before.mode)) return null;
  const after = await snapshots.read(toHash);
  return after.ok ? reverseMerge(current.content, before.content, after.content) : null;
}
