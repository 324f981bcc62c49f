import type { SqliteContext } from './sqlite-context.js';

/**
 * VACUUM only when free space is at least this share of the file: rebuilding costs a full copy
 * (GC runs at idle or on request; a 100 MB store is rebuilt in a few seconds once 6 MB are free).
 */
const MIN_FREE_SHARE = 1 / 16;
/** …and at least this many bytes: a new store is mostly empty pages of empty tables, with nothing to gain. */
const MIN_FREE_BYTES = 64 * 1024;

/**
 * Gives free pages back to the file system: `VACUUM` rebuilds the database densely (rows in key
 * order, pages full), then a truncating checkpoint empties the WAL it went through. Runs only when
 * at least a sixteenth of the file (and 64 KB) is free: free pages (after GC deleted rows, or after a migration
 * copied tables) and the unused space inside pages (B-trees filled in random key order, as hashes
 * arrive, keep about a third of each page empty). VACUUM is one transaction: a kill in the middle leaves the database as it was, and a
 * store busy with another process's writes (or a reader holding the WAL) is left for the next GC.
 * Every table that code reads by rowid has an explicit INTEGER PRIMARY KEY, which VACUUM keeps.
 */
export function compactDatabase(context: SqliteContext): { freedBytes: number } {
  context.assertOpen();
  if (context.readOnly) return { freedBytes: 0 };
  const { db } = context;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const reclaimable = free * pageSize + unusedBytes(context, pageSize);
  if (reclaimable < MIN_FREE_BYTES || reclaimable < pages * pageSize * MIN_FREE_SHARE) return { freedBytes: 0 };
  try {
    db.exec('VACUUM');
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY') || (error as { code?: string }).code?.startsWith('SQLITE_LOCKED'))
      return { freedBytes: 0 };
    throw context.mapError(error, 'compact the database');
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const after = db.pragma('page_count', { simple: true }) as number;
  return { freedBytes: Math.max(0, pages - after) * pageSize };
}

/** Unused bytes inside the database's pages that a rebuild could give back (SQLite's `dbstat`); 0 without `dbstat`. */
function unusedBytes(context: SqliteContext, pageSize: number): number {
  try {
    // A table or index on one page cannot shrink: count what each holds beyond one page.
    return (
      context.db
        .prepare('SELECT COALESCE(SUM(MAX(0, unused - ?)), 0) AS unused FROM (SELECT SUM(unused) AS unused FROM dbstat GROUP BY name)')
        .get(pageSize) as { unused: number }
    ).unused;
  } catch {
    return 0;
  }
}
