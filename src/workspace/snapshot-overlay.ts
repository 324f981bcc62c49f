import type { Snapshot, SnapshotEntry } from './snapshot.js';
import type { WorkspacePath } from './workspace-path.js';

/**
 * A snapshot that starts equal to an earlier one without copying it: the incremental scan builds
 * its result as the previous scan's snapshot plus the few entries it re-read, where a copy of a
 * 10k-entry map would cost more than the scan's reads. It holds what the copy would, and iterates
 * in the base's order with new paths after, in the order they were set; unlike a copy, a base path
 * deleted and set again keeps its place (the scan deletes and sets again every file it re-reads,
 * and no reader depends on the order). The base is never written to, so the earlier snapshot stays
 * as it was.
 *
 * An overlay of an overlay shares the same flat base and copies only the changes; once those grow
 * past about √(2·size) a flat map is made instead (that copy, spread over the scans before it,
 * costs about as much as each scan's copy of the changes).
 */
export class SnapshotOverlay extends Map<WorkspacePath, SnapshotEntry> {
  #base: ReadonlyMap<WorkspacePath, SnapshotEntry>;
  /** Entries set over base entries (never in `#removed`). */
  readonly #replaced: Map<WorkspacePath, SnapshotEntry>;
  /** Base entries deleted. */
  readonly #removed: Set<WorkspacePath>;
  /** Paths not in the base, in the order they were set. */
  readonly #added: Map<WorkspacePath, SnapshotEntry>;

  private constructor(
    base: ReadonlyMap<WorkspacePath, SnapshotEntry>,
    replaced: Map<WorkspacePath, SnapshotEntry>,
    removed: Set<WorkspacePath>,
    added: Map<WorkspacePath, SnapshotEntry>,
  ) {
    super();
    this.#base = base;
    this.#replaced = replaced;
    this.#removed = removed;
    this.#added = added;
  }

  /**
   * A snapshot equal to `previous` for the caller to change: an overlay over it (or over its own
   * base, when `previous` is an overlay), or a flat copy when the changes carried along grew large.
   */
  static over(previous: Snapshot): Snapshot {
    if (!(previous instanceof SnapshotOverlay)) return new SnapshotOverlay(previous, new Map(), new Set(), new Map());
    const changes = previous.#replaced.size + previous.#removed.size + previous.#added.size;
    if (changes > Math.max(64, Math.sqrt(2 * previous.#base.size))) return previous.#flat();
    return new SnapshotOverlay(previous.#base, new Map(previous.#replaced), new Set(previous.#removed), new Map(previous.#added));
  }

  /** A flat map of the same entries in the same order: the base copied whole (the fast native copy), then the changes applied. */
  #flat(): Snapshot {
    const flat = new Map(this.#base);
    for (const key of this.#removed) flat.delete(key);
    for (const [key, entry] of this.#replaced) flat.set(key, entry);
    for (const [key, entry] of this.#added) flat.set(key, entry);
    return flat;
  }

  override get size(): number {
    return this.#base.size - this.#removed.size + this.#added.size;
  }

  override get(key: WorkspacePath): SnapshotEntry | undefined {
    const entry = this.#base.get(key);
    if (entry === undefined) return this.#added.get(key);
    return this.#removed.has(key) ? undefined : (this.#replaced.get(key) ?? entry);
  }

  override has(key: WorkspacePath): boolean {
    return this.#base.has(key) ? !this.#removed.has(key) : this.#added.has(key);
  }

  override set(key: WorkspacePath, entry: SnapshotEntry): this {
    if (this.#base.has(key)) {
      this.#removed.delete(key);
      this.#replaced.set(key, entry);
    } else this.#added.set(key, entry);
    return this;
  }

  override delete(key: WorkspacePath): boolean {
    if (!this.#base.has(key)) return this.#added.delete(key);
    if (this.#removed.has(key)) return false;
    this.#replaced.delete(key);
    this.#removed.add(key);
    return true;
  }

  override clear(): void {
    this.#base = new Map();
    this.#replaced.clear();
    this.#removed.clear();
    this.#added.clear();
  }

  override *entries(): MapIterator<[WorkspacePath, SnapshotEntry]> {
    const removed = this.#removed;
    const replaced = this.#replaced;
    if (removed.size === 0 && replaced.size === 0) yield* this.#base;
    else
      for (const [key, entry] of this.#base) {
        if (removed.has(key)) continue;
        yield [key, replaced.get(key) ?? entry];
      }
    yield* this.#added;
  }

  override [Symbol.iterator](): MapIterator<[WorkspacePath, SnapshotEntry]> {
    return this.entries();
  }

  override *keys(): MapIterator<WorkspacePath> {
    for (const [key] of this.entries()) yield key;
  }

  override *values(): MapIterator<SnapshotEntry> {
    for (const [, entry] of this.entries()) yield entry;
  }

  override forEach(callback: (entry: SnapshotEntry, key: WorkspacePath, map: Map<WorkspacePath, SnapshotEntry>) => void, thisArg?: unknown): void {
    for (const [key, entry] of this.entries()) callback.call(thisArg, entry, key, this);
  }
}
