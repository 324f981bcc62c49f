import { WaypointError } from './waypoint-error.js';

export type StoreErrorCode =
  | 'NOT_A_WAYPOINT_STORE'
  | 'STORE_SCHEMA_TOO_NEW'
  | 'STORE_MIGRATION_FAILED'
  | 'STORE_READ_ONLY'
  | 'STORE_CLOSED'
  | 'STORE_BUSY'
  | 'STORE_IO'
  | 'STORE_FULL'
  | 'STORE_PATH_UNUSABLE'
  | 'STORE_UNAVAILABLE'
  | 'STORE_URL_UNSUPPORTED';

/**
 * The store file itself cannot be used as asked (wrong file, newer schema, read-only, busy, its
 * disk full, a path where no store can be created, a database server that cannot be reached, a URL
 * of a kind no backend serves).
 */
export class StoreError extends WaypointError {
  override readonly name: string = 'StoreError';
  declare readonly code: StoreErrorCode;

  constructor(options: { code: StoreErrorCode; message: string; details?: Record<string, unknown>; cause?: unknown }) {
    super({
      ...options,
      exitCode: 5,
      httpStatus: options.code === 'STORE_BUSY' || options.code === 'STORE_UNAVAILABLE' ? 503 : 500,
    });
  }
}
