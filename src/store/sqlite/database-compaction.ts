import type { SqliteContext } from './sqlite-context.js';

/** VACUUM only when free pages are at least this share of the file: rebuilding costs a full copy. */
const MIN_FREE_SHARE = 0.2;

/**
 * Gives free pages back to the file system: `VACUUM` rebuilds the database densely (rows in key
 * order, pages full), then a truncating checkpoint empties the WAL it went through. Runs only when
 * at least a fifth of the file is free pages (after GC deleted rows, or after a migration copied
 * tables). VACUUM is one transaction: a kill in the middle leaves the database as it was, and a
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
  if (pages === 0 || free < pages * MIN_FREE_SHARE) return { freedBytes: 0 };
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
