import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreFootprint } from '../store.js';

/** The SQLite backend's bytes: the database file with its WAL and shared-memory files, and the blob pack directory beside it. */
export function sqliteFootprint(databasePath: string, blobDir: string): StoreFootprint {
  const databaseFiles = ['', '-wal', '-shm'].map((suffix) => `${databasePath}${suffix}`).filter((path) => existsSync(path));
  const databaseBytes = databaseFiles.reduce((sum, path) => sum + statSync(path).size, 0);
  const blobBytes = directorySize(blobDir);
  return {
    parts: [
      { kind: 'database', name: 'database file, WAL and shared memory', paths: databaseFiles, bytes: databaseBytes },
      { kind: 'blobs', name: 'blob packs', paths: existsSync(blobDir) ? [blobDir] : [], bytes: blobBytes },
    ],
    totalBytes: databaseBytes + blobBytes,
  };
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
