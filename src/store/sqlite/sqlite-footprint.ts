import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { StoreFootprint, StoreFootprintContent } from '../store.js';

/**
 * The SQLite backend's bytes: the database file with its WAL and shared-memory files, and the blob
 * pack directory beside it. With the open database, the database part also lists each table and
 * index by the pages it takes (SQLite's `dbstat`), and the free pages.
 */
export function sqliteFootprint(databasePath: string, blobDir: string, db?: Database.Database): StoreFootprint {
  const databaseFiles = ['', '-wal', '-shm'].map((suffix) => `${databasePath}${suffix}`).filter((path) => existsSync(path));
  const databaseBytes = databaseFiles.reduce((sum, path) => sum + statSync(path).size, 0);
  const blobBytes = directorySize(blobDir);
  const contents = db ? databaseContents(db) : null;
  return {
    parts: [
      { kind: 'database', name: 'database file, WAL and shared memory', paths: databaseFiles, bytes: databaseBytes, ...(contents ? { contents } : {}) },
      { kind: 'blobs', name: 'blob packs', paths: existsSync(blobDir) ? [blobDir] : [], bytes: blobBytes },
    ],
    totalBytes: databaseBytes + blobBytes,
  };
}

/** Each table and index with the bytes of its pages, and the free pages; null when this SQLite has no `dbstat`. */
function databaseContents(db: Database.Database): StoreFootprintContent[] | null {
  try {
    const kinds = new Map(
      (db.prepare("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'index')").all() as Array<{ name: string; type: string }>).map((row) => [
        row.name,
        row.type,
      ]),
    );
    const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE aggregate = FALSE GROUP BY name').all() as Array<{
      name: string;
      bytes: number;
    }>;
    const contents: StoreFootprintContent[] = rows.map((row) => ({
      name: row.name,
      kind: kinds.get(row.name) === 'index' ? 'index' : 'table',
      bytes: row.bytes,
    }));
    const free = (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    if (free > 0) contents.push({ name: 'free pages', kind: 'free', bytes: free });
    return contents.sort((a, b) => b.bytes - a.bytes || (a.name < b.name ? -1 : 1));
  } catch {
    return null; // built without dbstat, or the database is busy: the total still stands
  }
}

function directorySize(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sum + directorySize(path);
    try {
      return sum + statSync(path).size;
    } catch {
      return sum; // removed meanwhile (a pack compacted away by another process)
    }
  }, 0);
}
