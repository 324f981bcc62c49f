import { StoreError, WaypointError } from '../../model/index.js';

/** Where a store failure happened, for its message. */
export interface StoreFailureContext {
  /** The store file. */
  path: string;
  /** What was being done, as a verb phrase ("append a message", "store blobs"). */
  operation: string;
}

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Turns a failure of the SQLite backend — better-sqlite3's `SqliteError` (`SQLITE_FULL`,
 * `SQLITE_BUSY` …) or a Node system error of a pack file (`ENOSPC` …) — into a typed
 * `StoreError`; anything else is returned unchanged. A full disk is `STORE_FULL` whichever of the
 * two noticed it (a `STORE_IO` raised for a pack write that ran out of space is re-labelled).
 */
export function mapStoreFailure(error: unknown, context: StoreFailureContext): unknown {
  if (error instanceof WaypointError) {
    return error.code === 'STORE_IO' && DISK_FULL.has(codeOf(error.cause)) ? storeFull(context, error.cause) : error;
  }
  const code = codeOf(error);
  const details = { path: context.path, operation: context.operation };
  if (code === 'SQLITE_FULL' || DISK_FULL.has(code)) return storeFull(context, error);
  if (code.startsWith('SQLITE_READONLY')) {
    return new StoreError({
      code: 'STORE_READ_ONLY',
      message: `Cannot ${context.operation}: the store ${context.path} is read-only (${(error as Error).message}).`,
      details,
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreError({
      code: 'STORE_BUSY',
      message: `Cannot ${context.operation}: the store ${context.path} stayed locked by another process. Try again.`,
      details,
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new StoreError({ code: 'STORE_IO', message: `Cannot ${context.operation}: ${(error as Error).message}`, details, cause: error });
  }
  return error;
}

function storeFull(context: StoreFailureContext, cause: unknown): StoreError {
  return new StoreError({
    code: 'STORE_FULL',
    message: `Cannot ${context.operation}: the disk holding the store ${context.path} is full. Free space on it (or move the store with --store / $WAYPOINT_HOME) and try again; this step was not recorded.`,
    details: { path: context.path, operation: context.operation, reason: codeOf(cause) || 'full' },
    cause,
  });
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** Methods of the blob storage whose result is an object with methods of its own, guarded too. */
const RETURNS_HANDLE = new Set(['beginPutMany', 'openStagedBatch']);

/**
 * The blob storage as the store hands it out: every method (and the handles `beginPutMany` and
 * `openStagedBatch` return) raises typed errors through {@link mapStoreFailure}, so a full disk
 * or a lock held too long reaches callers as `STORE_FULL` / `STORE_BUSY`, never as a raw
 * `SqliteError` or `ENOSPC`.
 */
export function guardBlobStorage<T extends object>(storage: T, path: string): T {
  return guard(storage, path, true);
}

function guard<T extends object>(target: T, path: string, top: boolean): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const operation = OPERATIONS[property] ?? 'use the blob store';
      const fail = (error: unknown): never => {
        throw mapStoreFailure(error, { path, operation });
      };
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...parameters: unknown[]) => unknown).apply(object, args);
        } catch (error) {
          fail(error);
        }
        if (result instanceof Promise) return result.catch(fail);
        if (top && RETURNS_HANDLE.has(property) && result !== null && typeof result === 'object') return guard(result, path, false);
        return result;
      };
    },
  });
}

const OPERATIONS: Record<string, string> = {
  putMany: 'store blobs',
  beginPutMany: 'store blobs',
  openStagedBatch: 'store blobs',
  add: 'store blobs',
  commit: 'store blobs',
  recompress: 'compress blobs',
  deleteMany: 'delete blobs',
  compact: 'compact blob packs',
  readStored: 'read a blob',
  getRecord: 'read a blob record',
  getRecords: 'read blob records',
};
