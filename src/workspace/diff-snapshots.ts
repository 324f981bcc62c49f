import type { Snapshot, SnapshotEntry } from './snapshot.js';
import { pathsThatMayDiffer } from './snapshot-derivation.js';
import type { WorkspacePath } from './workspace-path.js';

/** A file's content identity in a diff. */
export interface FileVersion {
  kind: SnapshotEntry['kind'];
  /** null when the scan did not read it (too large or unreadable). */
  hash: string | null;
  size: number;
  mode: number;
}

export interface FileModification {
  path: WorkspacePath;
  before: FileVersion;
  after: FileVersion;
}

/** What changed between two snapshots; each list sorted by path. */
export interface SnapshotDiff {
  created: (FileVersion & { path: WorkspacePath })[];
  modified: FileModification[];
  deleted: (FileVersion & { path: WorkspacePath })[];
}

/**
 * Compares two snapshots. A file is modified when its kind, mode or hash changed; when either side
 * has no hash (too large, unreadable), when its stat signature changed. Renames appear as a delete
 * plus a create with the same hash. Diff only complete scans (`ScanResult.complete`): a path
 * missing from a truncated scan is not a deleted file.
 *
 * @example
 * const { created, modified, deleted } = diffSnapshots(before.snapshot, after.snapshot)
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): SnapshotDiff {
  const diff: SnapshotDiff = { created: [], modified: [], deleted: [] };
  // An incremental scan's snapshot differs from the one it was built from only where it re-read.
  const candidates = pathsThatMayDiffer(before, after);
  if (candidates !== null) {
    for (const path of candidates) {
      const previous = before.get(path);
      const next = after.get(path);
      if (next === undefined) {
        if (previous !== undefined) diff.deleted.push({ path, ...version(previous) });
      } else if (previous === undefined) diff.created.push({ path, ...version(next) });
      else if (changed(previous, next)) diff.modified.push({ path, before: version(previous), after: version(next) });
    }
    return sorted(diff);
  }
  for (const [path, next] of after) {
    const previous = before.get(path);
    if (previous === undefined) diff.created.push({ path, ...version(next) });
    else if (changed(previous, next)) diff.modified.push({ path, before: version(previous), after: version(next) });
  }
  for (const [path, previous] of before) {
    if (!after.has(path)) diff.deleted.push({ path, ...version(previous) });
  }
  return sorted(diff);
}

function sorted(diff: SnapshotDiff): SnapshotDiff {
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  diff.created.sort(byPath);
  diff.modified.sort(byPath);
  diff.deleted.sort(byPath);
  return diff;
}

function changed(previous: SnapshotEntry, next: SnapshotEntry): boolean {
  if (previous.kind !== next.kind || previous.mode !== next.mode) return true;
  if (previous.hash !== null && next.hash !== null) return previous.hash !== next.hash;
  return (
    previous.hash !== next.hash ||
    previous.size !== next.size ||
    previous.mtimeMs !== next.mtimeMs ||
    previous.ctimeMs !== next.ctimeMs ||
    previous.ino !== next.ino
  );
}

function version(entry: SnapshotEntry): FileVersion {
  return { kind: entry.kind, hash: entry.hash, size: entry.size, mode: entry.mode };
}
