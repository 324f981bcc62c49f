import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { NameTooLongError, StoreError } from '../../model/index.js';
import type { Migration } from './migrations.js';
import { mapStoreFailure } from './store-failure.js';

/** `PRAGMA application_id` of a Waypoint store: the bytes "WAYP". */
export const WAYPOINT_APPLICATION_ID = 0x57415950;

const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * Page size of a new store. Every table and index takes at least one page, and the store has about
 * fifty: with SQLite's default 4 KiB pages an empty store is 229 KB. Rows here are small (a blob
 * row is about 100 bytes, a checkpoint about 300), so 1 KiB pages hold them as well; message text
 * past a page goes to overflow pages either way.
 */
export const NEW_STORE_PAGE_SIZE = 1024;

export interface OpenDatabaseOptions {
  path: string;
  readOnly: boolean;
  busyTimeoutMs: number;
  migrations: Migration[];
}

/**
 * Opens (creating when absent) a Waypoint SQLite database: checks it is ours before changing
 * anything, refuses a schema newer than the code, migrates older ones in one immediate
 * transaction (safe when several processes open a fresh file at once), and sets WAL, the busy
 * timeout and foreign keys.
 */
export function openDatabase(options: OpenDatabaseOptions): Database.Database {
  const { path } = options;
  const latest = options.migrations.at(-1)?.version ?? 0;
  refuseForeignFile(path);
  if (options.readOnly && !existsSync(path)) {
    throw new StoreError({
      code: 'STORE_READ_ONLY',
      message: `Cannot create the store ${path} in read-only mode. Open it once writable to create it.`,
      details: { path },
    });
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: options.readOnly, fileMustExist: options.readOnly });
  } catch (error) {
    throw new StoreError({ code: 'STORE_IO', message: `Cannot open the store ${path}: ${(error as Error).message}`, details: { path }, cause: error });
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    const applicationId = readPragma(db, path, 'application_id');
    const version = readPragma(db, path, 'user_version');
    if (applicationId !== WAYPOINT_APPLICATION_ID && !(applicationId === 0 && version === 0 && isEmpty(db))) {
      throw notOurs(path, 'it is an SQLite database of another program');
    }
    if (version > latest) {
      throw new StoreError({
        code: 'STORE_SCHEMA_TOO_NEW',
        message: `The store ${path} has schema version ${version}, newer than this Waypoint understands (${latest}). Upgrade Waypoint to open it.`,
        details: { path, storeVersion: version, supportedVersion: latest },
      });
    }
    if (!options.readOnly) {
      // Before the first page is written (WAL mode then fixes the size for the file's life).
      if (version === 0 && (db.pragma('page_count', { simple: true }) as number) === 0) db.pragma(`page_size = ${NEW_STORE_PAGE_SIZE}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // History reads touch every page of a long path; keep them in this connection's cache.
      db.pragma('cache_size = -32768');
    }
    db.pragma('foreign_keys = ON');
    if (version < latest) {
      if (options.readOnly) {
        throw new StoreError({
          code: 'STORE_READ_ONLY',
          message: `The store ${path} needs a schema upgrade (${version} → ${latest}); open it writable once.`,
          details: { path, storeVersion: version, supportedVersion: latest },
        });
      }
      migrate(db, options.migrations, path);
    }
    return db;
  } catch (error) {
    db.close();
    // A full disk shows up here when a new store is created or migrated (SQLITE_FULL).
    throw mapStoreFailure(error, { path, operation: 'open the store' });
  }
}

/**
 * Creates the store's directory (and its missing parents) so the file can be created there, or
 * refuses with `STORE_PATH_UNUSABLE` naming the path and what is in the way — a part of the path
 * that is a regular file, a name too long, no permission — before anything is created.
 */
export function prepareStoreDirectory(path: string): void {
  const tooLong = NameTooLongError.check(path);
  if (tooLong) throw unusablePath(path, 'a name in it is longer than a file system allows (255 bytes a name, 4095 the whole path)', tooLong);
  const blocker = fileInTheWay(path);
  if (blocker !== null) throw unusablePath(path, blocker === path ? 'it is a file, not a directory' : `${blocker} is a file, not a directory`);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw mapStoreFailure(error, { path, operation: 'create the store' });
    const reason =
      code === 'EACCES' || code === 'EPERM'
        ? `this user may not create ${dirname(path)}`
        : code === 'EROFS'
          ? `${dirname(path)} would be on a read-only file system`
          : `its directory cannot be created (${code ?? (error as Error).message})`;
    throw unusablePath(path, reason, error);
  }
}

/** The nearest ancestor of `path` (or `path` itself as a directory name) that exists and is not a directory. */
function fileInTheWay(path: string): string | null {
  for (let current = dirname(path); ; current = dirname(current)) {
    let stats;
    try {
      stats = statSync(current);
    } catch {
      if (dirname(current) === current) return null;
      continue;
    }
    return stats.isDirectory() ? null : current;
  }
}

function unusablePath(path: string, reason: string, cause?: unknown): StoreError {
  return new StoreError({
    code: 'STORE_PATH_UNUSABLE',
    message: `Cannot create the store ${path}: ${reason}. Point --store (or $WAYPOINT_HOME) at a file in a directory you can write; nothing was created.`,
    details: { path, reason },
    cause,
  });
}

/**
 * Every pending migration in one transaction: a failure rolls all of them back, so the file stays
 * as it was. A failure that is not the disk, a lock or permissions (those map to their own codes)
 * is `STORE_MIGRATION_FAILED`, naming the migration.
 */
function migrate(db: Database.Database, list: Migration[], path: string): void {
  let running: Migration | null = null;
  let from = 0;
  try {
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      from = db.pragma('user_version', { simple: true }) as number;
      for (const migration of list) {
        if (migration.version <= from) continue;
        running = migration;
        migration.up(db);
        db.pragma(`user_version = ${migration.version}`);
      }
      running = null;
      db.pragma(`application_id = ${WAYPOINT_APPLICATION_ID}`);
    }).immediate();
  } catch (error) {
    const mapped = mapStoreFailure(error, { path, operation: 'upgrade the store' });
    if (mapped !== error || running === null) throw mapped;
    const failed = running as Migration;
    throw new StoreError({
      code: 'STORE_MIGRATION_FAILED',
      message: `Cannot upgrade the store ${path} to schema version ${failed.version} (${failed.description}): ${(error as Error).message}. Nothing was changed: the store is still at version ${from}; keep a copy of it and report this.`,
      details: { path, storeVersion: from, failedVersion: failed.version },
      cause: error,
    });
  }
}

function refuseForeignFile(path: string): void {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (stat.isDirectory()) throw notOurs(path, 'it is a directory');
  if (stat.size === 0) return;
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_HEADER) throw notOurs(path, 'it is not an SQLite database');
}

function readPragma(db: Database.Database, path: string, name: string): number {
  // The first read of a WAL database is where a missing, uncreatable -shm file shows up.
  try {
    return db.pragma(name, { simple: true }) as number;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw notOurs(path, 'it is not a readable SQLite database', error);
    if (code?.startsWith('SQLITE_READONLY')) {
      throw new StoreError({
        code: 'STORE_READ_ONLY',
        message: `Cannot open the store ${path}: this user may not write it or its directory, and SQLite needs to create its shared-memory file (${path}-shm) beside it to read a WAL database. Ask the owner for write access to the directory, or copy the store somewhere writable.`,
        details: { path },
        cause: error,
      });
    }
    throw new StoreError({ code: 'STORE_IO', message: `Cannot read the store ${path}: ${(error as Error).message}`, details: { path }, cause: error });
  }
}

function isEmpty(db: Database.Database): boolean {
  const row = db.prepare("SELECT count(*) AS count FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get() as { count: number };
  return row.count === 0;
}

function notOurs(path: string, reason: string, cause?: unknown): StoreError {
  return new StoreError({
    code: 'NOT_A_WAYPOINT_STORE',
    message: `${path} is not a Waypoint store (${reason}). Point --store at a Waypoint store file or at a path that does not exist yet.`,
    details: { path, reason },
    cause,
  });
}
