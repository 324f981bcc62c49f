import type { WorkspaceLockHolder, WorkspaceLockRequest } from '../store.js';
import type { SqliteContext } from './sqlite-context.js';

interface LockRow {
  path: string;
  owner: string;
  pid: number;
  host: string;
  purpose: string;
  acquired_at: number;
}

/**
 * Takes every lock of `request` in one write transaction, or none: a row of another owner on one
 * of the paths, or on a directory inside or above one, blocks unless `isStale` says its holder is
 * gone, in which case that holder's rows are removed (taken over). Returns the blocking holder, or
 * null when the locks are now held.
 */
export function acquireWorkspaceLocks(
  context: SqliteContext,
  request: WorkspaceLockRequest,
  isStale: (holder: WorkspaceLockHolder) => boolean,
): WorkspaceLockHolder | null {
  return context.write('take a workspace lock', () => {
    const rows = context.statement('SELECT * FROM workspace_locks').all() as LockRow[];
    const stale = new Set<string>();
    for (const row of rows) {
      if (row.owner === request.owner || stale.has(row.owner)) continue;
      if (!request.paths.some((path) => overlaps(path, row.path))) continue;
      const holder = toHolder(row);
      if (!isStale(holder)) return holder;
      stale.add(row.owner);
    }
    for (const owner of stale) context.statement('DELETE FROM workspace_locks WHERE owner = ?').run(owner);
    const insert = context.statement(
      `INSERT INTO workspace_locks (path, owner, pid, host, purpose, acquired_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, purpose = excluded.purpose, acquired_at = excluded.acquired_at`,
    );
    const now = Date.now();
    for (const path of new Set(request.paths)) insert.run(path, request.owner, request.pid, request.host, request.purpose, now);
    return null;
  });
}

/** Releases every lock `owner` holds (nothing when it holds none, e.g. after it was taken over). */
export function releaseWorkspaceLocks(context: SqliteContext, owner: string): void {
  context.write('release a workspace lock', () => {
    context.statement('DELETE FROM workspace_locks WHERE owner = ?').run(owner);
  });
}

/** Whether one directory is the other or lies inside it (paths are absolute, `/`-separated). */
function overlaps(a: string, b: string): boolean {
  const inside = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
  return inside(a, b) || inside(b, a);
}

function toHolder(row: LockRow): WorkspaceLockHolder {
  return { path: row.path, owner: row.owner, pid: row.pid, host: row.host, purpose: row.purpose, acquiredAt: row.acquired_at };
}
