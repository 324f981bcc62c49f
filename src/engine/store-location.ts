import { homedir } from 'node:os';
import { join } from 'node:path';

/** File name of the store inside a Waypoint home directory. */
export const STORE_FILE_NAME = 'waypoint.db';

/**
 * Where the store lives when nobody says: `$WAYPOINT_HOME/waypoint.db`, else
 * `~/.waypoint/waypoint.db`. An explicit `--store` (or `path` option) always wins.
 *
 * @example
 * const waypoint = await openWaypoint({ path: defaultStorePath() });
 */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.WAYPOINT_HOME && env.WAYPOINT_HOME.trim() !== '' ? env.WAYPOINT_HOME : join(homedir(), '.waypoint');
  return join(home, STORE_FILE_NAME);
}
