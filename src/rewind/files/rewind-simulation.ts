import { hashContent, type Checkpoint } from '../../model/index.js';
import { isLinkMode, type ResolvedPath, type Workspace } from '../../workspace/index.js';
import { ABSENT, holdsVersion, readDisk, resolveEntry, type ContentState, type ResolvedEntry } from './disk-state.js';
import type { EarlyWrites } from './early-writes.js';
import type { FileResolution, FileRewindStatus, ShellChange } from './file-rewind-types.js';
import { directoryInWayReason, scanDirectoryInWay } from './directory-in-way.js';
import { reverseMerge } from './reverse-merge.js';
import { short, type SnapshotReader } from './snapshot-reader.js';
import { timingMark } from './apply-timing.js';

/**
 * How a simulation treats a file whose current content is not what the checkpoint left:
 * `check` (preview/apply) marks it `external_modified` unless it has a resolution; `direct` (restore,
 * cascade) and `rollback` (turn rollback) overwrite it — its content is kept first.
 * `rollback` also reports a create whose file is already gone (`ALREADY_GONE`, counted as undone).
 */
export type SimulationPolicy = 'check' | 'direct' | 'rollback';

export interface SimulationInput {
  /** The checkpoints to undo, newest first. */
  checkpoints: readonly Checkpoint[];
  workspace: Workspace;
  snapshots: SnapshotReader;
  policy: SimulationPolicy;
  includeShellChanges: boolean;
  /** Per-path choices (`check` only): `merge`/`force` past a conflict, `skip` to leave the path as it is. */
  resolutions: Readonly<Record<string, FileResolution>>;
  /** When given, each path's content to put back has its temp file begun as soon as it is read (see `EarlyWrites`). */
  early?: EarlyWrites | undefined;
}

/** Where one path starts (on disk), where the simulation leaves it, and why. */
export interface PathOutcome {
  path: string;
  resolved: ResolvedPath | null;
  initial: ContentState;
  final: ContentState;
  status: FileRewindStatus;
  reason: string | null;
  resolution: FileResolution | null;
  /** Blocked paths are left as they are (a skipped one too: blocked, with resolution `skip`). */
  blocked: boolean;
  /** The newest checkpoint's after hash for this path. */
  expectedHash: string | null;
  /** The newest checkpoint's after mode for this path (a link's carries `LINK_MODE`). */
  expectedMode: number | null;
  checkpointIds: string[];
  /** A directory is at the path (it counts as no file); when the rewind writes a file here, the directories to remove first, deepest first. */
  directoryInWay: { directories: string[] } | null;
}

/** A checkpoint the simulation could not undo. */
export interface CheckpointProblem {
  checkpointId: string;
  path: string;
  status: FileRewindStatus;
  code: string;
  reason: string;
  hash: string | null;
}

export interface Simulation {
  paths: Map<string, PathOutcome>;
  shellChanges: ShellChange[];
  problems: CheckpointProblem[];
  /** Checkpoints that were undone in the simulation, newest first. */
  undone: string[];
}

/**
 * Undoes checkpoints newest → oldest in memory. A file edited several times is peeled back layer by
 * layer: the simulated content after undoing a later layer is the "current" content the earlier
 * layer is checked against. Nothing is written.
 */
export async function simulateRewind(input: SimulationInput): Promise<Simulation> {
  const paths = new Map<string, PathOutcome>();
  const shellChanges: ShellChange[] = [];
  const problems: CheckpointProblem[] = [];
  const undone: string[] = [];

  /**
   * The path's outcome; made on its first (newest) change, which leaves `expected` there: a file
   * this process wrote with exactly that content is known by its hash, not read (see `readDisk`).
   */
  const outcome = (path: string, expected: string | null): PathOutcome => {
    let found = paths.get(path);
    if (!found) {
      const disk = readDisk(input.workspace, path, resolvedEarly.get(path), input.snapshots.knownByStamp ? expected : null);
      const initial = disk.ok ? disk.state : ABSENT;
      found = {
        path,
        resolved: disk.resolved,
        initial,
        final: initial,
        status: 'safe',
        reason: null,
        resolution: null,
        blocked: false,
        expectedHash: null,
        expectedMode: null,
        checkpointIds: [],
        directoryInWay: !disk.ok && disk.directory ? { directories: [] } : null,
      };
      if (!disk.ok && !disk.directory) block(found, 'file_read_failed', disk.reason);
      paths.set(path, found);
    }
    return found;
  };
  /** Which paths each checkpoint undone so far changed (two for a rename or move). */
  const pathsOf = new Map<string, PathOutcome[]>();
  const block = (path: PathOutcome, status: FileRewindStatus, reason: string): void => {
    if (path.blocked) return;
    path.blocked = true;
    path.status = status;
    path.reason = reason;
    path.final = path.initial;
    // A blocked path is left as it is: a resolution chosen for it resolves nothing, and the newer
    // layers already undone in memory are not undone after all (the ledger must not say they were).
    path.resolution = null;
    for (const id of path.checkpointIds) {
      const at = undone.indexOf(id);
      if (at < 0) continue;
      undone.splice(at, 1);
      // The other half of a rename or move cannot be undone alone.
      for (const other of pathsOf.get(id) ?? [])
        if (other !== path) block(other, 'external_modified', `changed together with ${path.path}, which cannot be rewound`);
    }
  };
  /**
   * A path the person chose to skip: left as it is, its changes not undone. Its status still says
   * whether it changed since the agent wrote it; a path already blocked keeps its status and reason.
   */
  const skip = (path: PathOutcome): void => {
    if (path.resolution === 'skip') return;
    if (!path.blocked) {
      path.blocked = true;
      path.final = path.initial;
      if (!holdsVersion(path.initial, path.expectedHash, path.expectedMode)) {
        path.status = 'external_modified';
        path.reason = describeMismatch(path.initial.hash, path.expectedHash, path.initial.mode, path.expectedMode);
      }
    }
    path.resolution = 'skip';
  };
  const problem = (checkpoint: Checkpoint, path: string, status: FileRewindStatus, code: string, reason: string, hash: string | null): void => {
    problems.push({ checkpointId: checkpoint.id, path, status, code, reason, hash });
  };

  // Only the oldest change of each path in range gives the path its final content: those snapshots
  // are read (and verified) in one batch up front; a file's versions share one delta chain, decoded
  // once. A newer layer is only compared by hash, so its snapshot is only looked up, not read (a
  // large file changed in every turn is then decoded and hashed once, not once per turn).
  const undoable = input.checkpoints.filter(
    (checkpoint) =>
      (checkpoint.source !== 'exec' || input.includeShellChanges) && checkpoint.status !== 'skipped' && checkpoint.op !== 'mkdir' && checkpoint.op !== 'rmdir',
  );
  const oldest = new Map<string, Checkpoint>();
  for (const checkpoint of input.checkpoints) {
    if (checkpoint.source === 'exec' && !input.includeShellChanges) continue;
    oldest.set(checkpoint.path, checkpoint);
    if (checkpoint.toPath !== null) oldest.set(checkpoint.toPath, checkpoint);
  }
  const gives = (checkpoint: Checkpoint) => oldest.get(checkpoint.path) === checkpoint;
  timingMark('sim-start');
  await input.snapshots.prefetch(undoable.filter(gives).flatMap((checkpoint) => (checkpoint.beforeHash === null ? [] : [checkpoint.beforeHash])));
  timingMark('prefetch');
  const lookedUp = await input.snapshots.present(
    undoable.filter((checkpoint) => !gives(checkpoint)).flatMap((checkpoint) => (checkpoint.beforeHash === null ? [] : [checkpoint.beforeHash])),
  );

  timingMark('present');
  const resolvedEarly = input.early ? beginEarlyWrites(input.early, undoable.filter(gives), input) : new Map<string, ResolvedEntry>();
  timingMark('early');
  for (const checkpoint of input.checkpoints) {
    const isShell = checkpoint.source === 'exec';
    if (isShell) {
      shellChanges.push({
        checkpointId: checkpoint.id,
        op: checkpoint.op,
        path: checkpoint.path,
        toPath: checkpoint.toPath,
        included: input.includeShellChanges,
      });
      if (!input.includeShellChanges) continue;
    }
    const keys =
      checkpoint.toPath !== null && (checkpoint.op === 'rename' || checkpoint.op === 'move') ? [checkpoint.path, checkpoint.toPath] : [checkpoint.path];
    // What the change left at each of its paths (a rename or move: nothing at its old path).
    const left = (key: string) => (checkpoint.op !== 'rename' && checkpoint.op !== 'move') || key !== checkpoint.path;
    const touched = keys.map((key) => outcome(key, left(key) ? checkpoint.afterHash : null));
    pathsOf.set(checkpoint.id, touched);
    for (const path of touched) {
      if (path.checkpointIds.length === 0) {
        path.expectedHash = left(path.path) ? checkpoint.afterHash : null;
        path.expectedMode = left(path.path) ? checkpoint.afterMode : null;
      }
      path.checkpointIds.push(checkpoint.id);
      // A directory can give way only where the agent's last change left no file: one that took
      // the place of a file the agent left is someone else's.
      if (path.directoryInWay && path.expectedHash !== null)
        block(path, 'file_read_failed', 'it is now a directory; only files and symbolic links are rewound');
      if (input.policy === 'check' && input.resolutions[path.path] === 'skip') skip(path);
    }
    const blocked = touched.find((path) => path.blocked);
    if (blocked) {
      // A skipped path's changes are left alone, not a problem (the other half of a move through it stays too).
      if (blocked.resolution === 'skip') continue;
      // An older layer of a file that cannot be peeled back cannot be simulated either.
      problem(
        checkpoint,
        blocked.path,
        blocked.status,
        'PATH_BLOCKED',
        `an earlier problem with ${blocked.path} stops older changes to it: ${blocked.reason}`,
        null,
      );
      continue;
    }

    if (checkpoint.status === 'skipped' || checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir') {
      const reason =
        checkpoint.status === 'skipped'
          ? `no content was kept when this change was recorded (${checkpoint.skipReason ?? 'skipped'})`
          : 'directory changes have no content to restore';
      for (const path of touched) block(path, 'unsupported_checkpoint', reason);
      problem(
        checkpoint,
        checkpoint.path,
        'unsupported_checkpoint',
        checkpoint.status === 'skipped' ? 'CHECKPOINT_SKIPPED' : 'CHECKPOINT_UNSUPPORTED',
        reason,
        null,
      );
      continue;
    }

    let before: Buffer | null = null;
    // A newer layer whose snapshot the store holds is not read: an older layer of the path replaces it.
    if (checkpoint.beforeHash !== null && !(lookedUp.has(checkpoint.beforeHash) && !gives(checkpoint))) {
      const read = await input.snapshots.read(checkpoint.beforeHash);
      if (!read.ok) {
        for (const path of touched) block(path, read.status, read.reason);
        problem(
          checkpoint,
          checkpoint.path,
          read.status,
          read.status === 'checkpoint_missing' ? 'SNAPSHOT_MISSING' : 'SNAPSHOT_UNREADABLE',
          read.reason,
          checkpoint.beforeHash,
        );
        continue;
      }
      before = read.content;
    }
    // A record without a mode is a file's: it never takes a link's mode from what is there now.
    const restored = (mode: number | null): ContentState =>
      checkpoint.beforeHash === null
        ? ABSENT
        : { exists: true, hash: checkpoint.beforeHash, content: before, mode: checkpoint.beforeMode ?? (isLinkMode(mode) ? null : mode) };

    if (keys.length === 2) {
      const [source, target] = touched as [PathOutcome, PathOutcome];
      const mismatched = [
        ...(!holdsVersion(target.final, checkpoint.afterHash, checkpoint.afterMode) ? [target] : []),
        ...(source.final.exists ? [source] : []),
      ];
      if (input.policy === 'check' && !(await resolveMismatches(mismatched, 'a moved file can only be forced back, not merged'))) {
        for (const path of touched) if (!path.blocked) block(path, 'external_modified', 'changed together with a file that cannot be rewound');
        continue;
      }
      const mode = target.final.mode;
      target.final = ABSENT;
      source.final = restored(mode);
    } else {
      const path = touched[0]!;
      if (!holdsVersion(path.final, checkpoint.afterHash, checkpoint.afterMode)) {
        if (input.policy === 'rollback' && checkpoint.op === 'create' && !path.final.exists) {
          problem(checkpoint, path.path, 'safe', 'ALREADY_GONE', 'the file it created is already gone', null);
          undone.push(checkpoint.id);
          continue;
        }
        if (input.policy === 'check') {
          const resolution = input.resolutions[path.path];
          if (resolution === 'merge') {
            const merged = await mergeLayer(path, checkpoint, before);
            if (merged === null) {
              block(
                path,
                'external_modified',
                `${describeMismatch(path.final.hash, checkpoint.afterHash, path.final.mode, checkpoint.afterMode)}, and undoing the agent's change does not apply cleanly to the current text`,
              );
              continue;
            }
            path.resolution = 'merge';
            path.status = 'external_modified';
            path.reason ??= describeMismatch(path.final.hash, checkpoint.afterHash, path.final.mode, checkpoint.afterMode);
            path.final = { exists: true, hash: hashContent(merged), content: merged, mode: checkpoint.beforeMode ?? path.final.mode };
            undone.push(checkpoint.id);
            continue;
          }
          if (!(await resolveMismatches([path], null))) continue;
        }
      }
      path.final = restored(path.final.mode);
    }
    undone.push(checkpoint.id);
  }
  timingMark(`sim-loop(${paths.size})`);
  await readFinalContents();
  settleDirectoriesInWay();
  timingMark('sim-final');
  return { paths, shellChanges, problems, undone };

  /**
   * A final state whose snapshot was only looked up (a later layer's, left final by a rule that
   * keeps it): read now; a path whose content cannot be read is blocked as in the loop.
   */
  async function readFinalContents(): Promise<void> {
    for (const path of paths.values()) {
      if (path.blocked || !path.final.exists || path.final.content !== null || path.final.hash === null) continue;
      const read = await input.snapshots.read(path.final.hash);
      if (read.ok) path.final = { ...path.final, content: read.content };
      else block(path, read.status, read.reason);
    }
  }

  /**
   * A directory where the rewind puts a file back can give way only if the rewind deletes every
   * file in it (their contents are kept like any other); anything else in it blocks the path.
   */
  function settleDirectoriesInWay(): void {
    for (const path of paths.values()) {
      // Below a link, a file can come back only once the rewind removes the link itself.
      const link = path.resolved?.linkInPath;
      if (link && !path.blocked && path.final.exists) {
        const owner = paths.get(`${path.resolved!.root.name}:${link}`);
        if (!owner || owner.blocked || owner.final.exists)
          block(path, 'file_read_failed', `a symbolic link (${link}) is in its path now; a rewind never writes through one`);
      }
    }
    for (const path of paths.values()) {
      if (path.directoryInWay === null || path.blocked || !path.final.exists || path.resolved === null) continue;
      const inside = scanDirectoryInWay(path.resolved);
      const foreign = [
        ...inside.other,
        ...inside.files.filter((key) => {
          const child = paths.get(key);
          return !child || child.blocked || child.final.exists;
        }),
      ];
      if (foreign.length > 0) block(path, 'file_read_failed', directoryInWayReason(foreign));
      else path.directoryInWay = { directories: inside.directories };
    }
  }

  /** Applies `force` to mismatched paths in check mode; blocks them otherwise. */
  async function resolveMismatches(mismatched: PathOutcome[], mergeRefusal: string | null): Promise<boolean> {
    let ok = true;
    for (const path of mismatched) {
      const resolution = input.resolutions[path.path];
      const reason = describeMismatch(path.final.hash, path.expectedHash, path.final.mode, path.expectedMode);
      if (resolution === 'force') {
        path.resolution = 'force';
        path.status = 'external_modified';
        path.reason ??= reason;
      } else {
        block(path, 'external_modified', resolution === 'merge' && mergeRefusal ? `${reason}; ${mergeRefusal}` : reason);
        ok = false;
      }
    }
    return ok;
  }

  async function mergeLayer(path: PathOutcome, checkpoint: Checkpoint, known: Buffer | null): Promise<Buffer | null> {
    if (checkpoint.op !== 'modify' || checkpoint.beforeHash === null || checkpoint.afterHash === null || !path.final.exists) return null;
    const before = known ?? (await contentOf(checkpoint.beforeHash));
    if (path.final.content === null && path.final.hash !== null) {
      const current = await contentOf(path.final.hash);
      if (current !== null) path.final = { ...path.final, content: current };
    }
    if (before === null || path.final.content === null) return null;
    // A link's target text is not merged: it is forced back or left.
    if (isLinkMode(checkpoint.beforeMode) || isLinkMode(checkpoint.afterMode) || isLinkMode(path.final.mode)) return null;
    const after = await input.snapshots.read(checkpoint.afterHash);
    if (!after.ok) return null;
    return reverseMerge(path.final.content, before, after.content);
  }

  async function contentOf(hash: string): Promise<Buffer | null> {
    const read = await input.snapshots.read(hash);
    return read.ok ? read.content : null;
  }
}

/**
 * Begins the temp files of the contents the oldest changes of their paths put back (`givers`), read
 * already: a file's, with its mode on record, at a path that resolves — a renamed file's old content
 * at its old path too, unless the undo will likely move the file itself back (`movesBack`). Returns
 * each path resolved on the way, so the simulation reads it from there instead of resolving it again.
 */
function beginEarlyWrites(early: EarlyWrites, givers: readonly Checkpoint[], input: SimulationInput): Map<string, ResolvedEntry> {
  const resolved = new Map<string, ResolvedEntry>();
  for (const checkpoint of givers) {
    if (checkpoint.beforeHash === null || checkpoint.beforeMode === null || isLinkMode(checkpoint.beforeMode)) continue;
    if (checkpoint.toPath !== null && movesBack(checkpoint, input.checkpoints)) continue;
    const content = input.snapshots.cached(checkpoint.beforeHash);
    if (content === null) continue;
    let entry: ResolvedEntry;
    try {
      entry = resolveEntry(input.workspace, checkpoint.path);
    } catch {
      continue; // the simulation meets the same failure, and says why
    }
    resolved.set(checkpoint.path, entry);
    if (entry.entry?.isDirectory() || entry.resolved.linkInPath) continue;
    early.begin(entry.resolved, checkpoint.beforeHash, content, checkpoint.beforeMode, entry.entry);
  }
  return resolved;
}

/**
 * Whether undoing `rename` (its file moved from `path` to `toPath`) will likely move the file back
 * rather than write its old content at `path` again: the newest of the undone changes (`checkpoints`,
 * newest first) at `toPath` left there exactly what the rename took away. The plan decides for
 * certain (`pairMoves`); a wrong guess costs only a temp file made in vain, or one made later.
 */
function movesBack(rename: Checkpoint, checkpoints: readonly Checkpoint[]): boolean {
  for (const checkpoint of checkpoints) {
    if (checkpoint.toPath === rename.toPath) return checkpoint.afterHash === rename.beforeHash;
    if (checkpoint.path === rename.toPath) return checkpoint.op !== 'rename' && checkpoint.op !== 'move' && checkpoint.afterHash === rename.beforeHash;
  }
  return true;
}

/**
 * "changed since the checkpoint (now abc…, expected def…)" in words. With the modes, a link and a
 * file are told apart: a link that points elsewhere now, or one kind put in place of the other.
 */
export function describeMismatch(current: string | null, expected: string | null, currentMode?: number | null, expectedMode?: number | null): string {
  const kind = (mode: number | null | undefined) => (isLinkMode(mode) ? 'symbolic link' : 'file');
  if (current === null) return `the ${kind(expectedMode)} was removed after the agent's change (expected ${short(expected)})`;
  if (expected === null) return `a ${kind(currentMode)} exists here again (${short(current)}) although the agent's change removed it`;
  if (isLinkMode(currentMode) !== isLinkMode(expectedMode))
    return `a ${kind(currentMode)} is here now where the agent left a ${kind(expectedMode)} (now ${short(current)}, the agent left ${short(expected)})`;
  if (isLinkMode(currentMode)) return `the symbolic link points elsewhere since the agent's change (now ${short(current)}, the agent left ${short(expected)})`;
  return `the file changed after the agent's change (now ${short(current)}, the agent left ${short(expected)})`;
}
