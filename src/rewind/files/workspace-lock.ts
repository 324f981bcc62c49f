import { hostId, WaypointError } from '../../model/index.js';
import { randomBytes } from 'node:crypto';
import type { Store, WorkspaceLockHolder } from '../../store/index.js';
import type { Workspace } from '../../workspace/index.js';
import { WorkspaceBusyError } from './errors/index.js';
import { whileUnavailable } from './commit-outcome.js';

/** Journals this process is applying right now; recovery never touches them. */
export const journalsInFlight = new Set<string>();
/** Workspace locks this process holds right now (their owner tokens). */
const locksHeld = new Set<string>();
/**
 * Locks this process let go of while the store could not be reached: their rows are removed
 * before this process takes its next lock (this process's own stale rows count as free for it
 * meanwhile, but other processes on this host see a live holder).
 */
const unreleased = new Map<string, Store>();

/** A held workspace lock: every root of one workspace, for one rewind, redo or recovery. */
export interface WorkspaceLock {
  readonly owner: string;
  /** The real directories locked (the workspace's roots). */
  readonly paths: readonly string[];
  release(): Promise<void>;
}

export interface LockOptions {
  /** What the holder does, shown to whoever waits. */
  purpose: string;
  /** How long to wait for another holder to finish (default 60 s); 0: do not wait. */
  waitMs?: number;
}

/**
 * Takes the store's lock on every root of `workspace` (all or none), so rewinds, redos, forks that
 * change files, and recovery of one workspace run one at a time across processes. A holder that
 * died (same host, its pid gone — SIGKILL, a crash) is taken over at once; a live one is waited
 * for, polling, up to `waitMs`, then {@link WorkspaceBusyError}. With `waitMs: 0`, resolves to null
 * instead of waiting.
 */
export async function lockWorkspace(store: Store, workspace: Workspace, options: LockOptions & { waitMs: 0 }): Promise<WorkspaceLock | null>;
export async function lockWorkspace(store: Store, workspace: Workspace, options: LockOptions): Promise<WorkspaceLock>;
export async function lockWorkspace(store: Store, workspace: Workspace, options: LockOptions): Promise<WorkspaceLock | null> {
  for (const [stale, where] of unreleased)
    await where.releaseWorkspaceLocks(stale).then(
      () => unreleased.delete(stale),
      () => undefined,
    );
  const paths = [...new Set(workspace.roots.map((root) => root.realDir))];
  const owner = `lock_${randomBytes(10).toString('hex')}`;
  const waitMs = options.waitMs ?? 60_000;
  const deadline = Date.now() + waitMs;
  // Marked before it exists, so a holder of this process is never taken for a dead one.
  locksHeld.add(owner);
  let delay = 2;
  try {
    for (;;) {
      const holder = await store.acquireWorkspaceLocks({ owner, paths, pid: process.pid, host: hostId(), purpose: options.purpose }, isStale);
      if (holder === null) break;
      if (waitMs === 0) {
        locksHeld.delete(owner);
        return null;
      }
      if (Date.now() >= deadline) throw new WorkspaceBusyError({ holder, waitedMs: waitMs });
      // Randomized, growing pauses: waiters do not wake in lockstep.
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
      delay = Math.min(delay * 2, 50);
    }
  } catch (error) {
    locksHeld.delete(owner);
    throw error;
  }
  let released = false;
  return {
    owner,
    paths,
    async release() {
      if (released) return;
      released = true;
      try {
        await whileUnavailable(() => store.releaseWorkspaceLocks(owner));
      } catch (error) {
        // A store that went away must not hide the outcome of the work the lock guarded.
        if (!WaypointError.is(error, 'STORE_UNAVAILABLE')) throw error;
        unreleased.set(owner, store);
      } finally {
        locksHeld.delete(owner);
      }
    },
  };
}

/** Whether a lock's holder is gone: its process no longer runs on this host. */
function isStale(holder: WorkspaceLockHolder): boolean {
  return processGone(holder.pid, holder.host, () => locksHeld.has(holder.owner));
}

/**
 * Why a record written by process `pid` on `host` may still be in use, or null when that process
 * is gone. Another host cannot be checked, so it counts as alive; this process counts as alive
 * only for what `heldHere` says it still holds.
 */
export function liveWriter(pid: unknown, host: unknown, heldHere: () => boolean): string | null {
  if (typeof pid !== 'number') return null;
  if (typeof host === 'string' && host !== hostId()) return `written on another host (${host}); it may still be applying`;
  if (pid === process.pid) return heldHere() ? 'being applied by this process' : null;
  try {
    process.kill(pid, 0);
    return `process ${pid}, which wrote it, is still running`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? `process ${pid}, which wrote it, is still running` : null;
  }
}

function processGone(pid: number, host: string, heldHere: () => boolean): boolean {
  return liveWriter(pid, host, heldHere) === null;
}

/** Whether two sets of directories share one (or one lies inside another). */
export function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const inside = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
  return a.some((left) => b.some((right) => inside(left, right) || inside(right, left)));
}
