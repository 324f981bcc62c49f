import type { Snapshot } from './snapshot.js';
import type { WorkspacePath } from './workspace-path.js';

/** A snapshot an incremental scan built from an earlier one: equal to `base` except at `touched`. */
export interface SnapshotDerivation {
  readonly base: Snapshot;
  /** Every path set, replaced or deleted in the copy (a superset of the paths that differ). */
  readonly touched: ReadonlySet<WorkspacePath>;
}

// In-memory only: snapshots are treated as immutable once a scan returns them, so a derivation
// recorded then stays true for as long as both maps live.
const derivations = new WeakMap<Snapshot, SnapshotDerivation>();

/** Records that `snapshot` is `base` changed at `touched` alone (the incremental scan). */
export function recordDerivation(snapshot: Snapshot, derivation: SnapshotDerivation): void {
  derivations.set(snapshot, derivation);
}

/**
 * The paths at which `after` may differ from `before`, when `after` was derived from `before` by an
 * incremental scan; null otherwise (compare every path).
 */
export function pathsThatMayDiffer(before: Snapshot, after: Snapshot): ReadonlySet<WorkspacePath> | null {
  const derivation = derivations.get(after);
  return derivation !== undefined && derivation.base === before ? derivation.touched : null;
}
