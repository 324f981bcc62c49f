import type { Snapshot } from './snapshot.js';
import type { WorkspacePath } from './workspace-path.js';

/** A snapshot an incremental scan built from an earlier one: equal to `base` except at `touched`. */
export interface SnapshotDerivation {
  readonly base: Snapshot;
  /** Every path set, replaced or deleted in the copy (a superset of the paths that differ). */
  readonly touched: ReadonlySet<WorkspacePath>;
}

// In-memory only: snapshots are treated as immutable once a scan returns them, so a derivation
// recorded then stays true for as long as both maps live. The base is held weakly: each scan's
// snapshot derives from the one before, and a strong reference would keep every earlier snapshot
// of a long-lived process (the resident helper) alive through this map.
const derivations = new WeakMap<Snapshot, { readonly base: WeakRef<Snapshot>; readonly touched: ReadonlySet<WorkspacePath> }>();

/** Records that `snapshot` is `base` changed at `touched` alone (the incremental scan). */
export function recordDerivation(snapshot: Snapshot, derivation: SnapshotDerivation): void {
  derivations.set(snapshot, { base: new WeakRef(derivation.base), touched: derivation.touched });
}

/**
 * The paths at which `after` may differ from `before`, when `after` was derived from `before` by an
 * incremental scan; null otherwise (compare every path).
 */
export function pathsThatMayDiffer(before: Snapshot, after: Snapshot): ReadonlySet<WorkspacePath> | null {
  const derivation = derivations.get(after);
  return derivation !== undefined && derivation.base.deref() === before ? derivation.touched : null;
}
