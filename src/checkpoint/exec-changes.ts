import type { SkippedPath, ScanResult, SnapshotDiff, SnapshotEntry } from '../workspace/index.js';
import type { CaptureContext } from './capture-context.js';
import { SYMLINK_MODE } from './file-capture.js';
import type { PendingChange } from './record-changes.js';

/** A path whose changes the capture could not (fully) keep, and why. */
export interface UncoveredPath {
  path: string;
  reason: string;
  detail?: string;
}

/** The part of a scan the diff's pending changes need. */
export type ScannedSide = Pick<ScanResult, 'snapshot' | 'skipped'>;

/**
 * The checkpoints a diff between two scans stands for: before contents from the first scan's
 * blobs, after contents stored by the second; a change whose content was not read (too large,
 * unreadable) or whose before is not in the store is a `skipped` row, listed in `uncovered`.
 */
export async function toPendingChanges(
  context: CaptureContext,
  diff: SnapshotDiff,
  before: ScannedSide,
  after: ScannedSide,
  uncovered: UncoveredPath[],
): Promise<PendingChange[]> {
  const skipReasons = new Map<string, SkippedPath>();
  for (const skipped of [...before.skipped, ...after.skipped]) skipReasons.set(skipped.path, skipped);
  const items: Array<{ path: string; old: SnapshotEntry | null; next: SnapshotEntry | null }> = [
    ...diff.deleted.map((item) => ({ path: item.path, old: before.snapshot.get(item.path)!, next: null })),
    ...diff.modified.map((item) => ({ path: item.path, old: before.snapshot.get(item.path)!, next: after.snapshot.get(item.path)! })),
    ...diff.created.map((item) => ({ path: item.path, old: null, next: after.snapshot.get(item.path)! })),
  ];
  const beforeHashes = items.flatMap((item) => (item.old?.hash ? [item.old.hash] : []));
  const stored = await context.store.blobs.has([...new Set(beforeHashes)]);
  const changes: PendingChange[] = [];
  for (const { path, old, next } of items) {
    const op = old === null ? 'create' : next === null ? 'delete' : 'modify';
    const base: PendingChange = { op, path, beforeMode: modeOf(old), afterMode: modeOf(next), beforeHash: old?.hash ?? null, afterHash: next?.hash ?? null };
    const unknown = (old !== null && old.hash === null) || (next !== null && next.hash === null);
    if (unknown) {
      const skipped = skipReasons.get(path);
      const reason = skipped?.reason ?? 'unreadable';
      uncovered.push({ path, reason, ...(skipped?.detail ? { detail: skipped.detail } : {}) });
      changes.push({ ...base, beforeHash: null, afterHash: null, skipReason: reason });
      continue;
    }
    if (old?.hash && !stored.has(old.hash)) {
      uncovered.push({ path, reason: 'before_missing', detail: 'the previous content was not in the blob store' });
      changes.push({ ...base, beforeHash: null, afterHash: null, skipReason: 'before_missing' });
      continue;
    }
    changes.push(base);
  }
  return changes;
}

export function modeOf(entry: SnapshotEntry | null): number | null {
  if (entry === null) return null;
  return entry.kind === 'symlink' ? SYMLINK_MODE | entry.mode : entry.mode;
}

export function changedHashes(diff: SnapshotDiff | null): boolean {
  if (diff === null) return false;
  return diff.created.length > 0 || diff.deleted.length > 0 || diff.modified.some((item) => item.before.hash !== item.after.hash);
}

/** Content hashes a diff brought into the snapshot. */
export function gainedHashes(diff: SnapshotDiff | null): string[] {
  if (diff === null) return [];
  const gained: string[] = [];
  for (const item of diff.created) if (item.hash !== null) gained.push(item.hash);
  for (const item of diff.modified) if (item.after.hash !== null && item.after.hash !== item.before.hash) gained.push(item.after.hash);
  return gained;
}
