import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { PostgresStore, SqliteStore, isPostgresUrl, isStoreUrl, parsePostgresUrl, redactStoreUrl, type Store } from '../store/index.js';

/** File name of the store inside a Waypoint home directory. */
export const STORE_FILE_NAME = 'waypoint.db';

/**
 * Where the store file lives when nobody says: `$WAYPOINT_HOME/waypoint.db`, else
 * `~/.waypoint/waypoint.db`. An explicit `--store` (or `path` option) always wins.
 *
 * @example
 * const waypoint = await openWaypoint({ path: defaultStorePath() });
 */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.WAYPOINT_HOME && env.WAYPOINT_HOME.trim() !== '' ? env.WAYPOINT_HOME : join(homedir(), '.waypoint');
  return join(home, STORE_FILE_NAME);
}

/**
 * The store to use when `--store` is not given: `$WAYPOINT_STORE` (a file path or a
 * `postgres://` URL), else {@link defaultStorePath}.
 */
export function defaultStoreLocation(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const store = env.WAYPOINT_STORE?.trim();
  return store ? resolveStoreLocation(store, cwd) : defaultStorePath(env);
}

/** A `--store` value as the engine takes it: a URL stays as given, a file path is made absolute against `cwd`. */
export function resolveStoreLocation(location: string, cwd: string): string {
  return isStoreUrl(location) ? location : resolve(cwd, location);
}

/** Whether a store location is a file on this machine (false for a database URL). */
export function isStoreFile(location: string): boolean {
  return !isStoreUrl(location);
}

/** A store location as it may be shown or logged: a URL's password replaced by `***`. */
export function storeLabel(location: string): string {
  return redactStoreUrl(location);
}

export interface OpenStoreOptions {
  readOnly?: boolean;
  busyTimeoutMs?: number;
}

/**
 * Opens the store a location names: `postgres://` or `postgresql://` a PostgreSQL store, any other
 * URL is refused (`STORE_URL_UNSUPPORTED`, nothing created), anything else an SQLite file.
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isStoreUrl(location)) {
    if (!isPostgresUrl(location)) parsePostgresUrl(location);
    return PostgresStore.open({ url: location, ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }) });
  }
  return SqliteStore.open({
    path: location,
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
}
