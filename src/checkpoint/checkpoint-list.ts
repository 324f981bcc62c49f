import { InvalidArgumentError, type Checkpoint } from '../model/index.js';
import type { Store } from '../store/store.js';
import { PRIMARY_ROOT } from './session-workspace.js';

/** A checkpoint with the paths a person reads: `src/a.ts` for the primary root, `notes:todo.md` otherwise. */
export interface ListedCheckpoint extends Checkpoint {
  displayPath: string;
  displayToPath: string | null;
}

export const DEFAULT_CHECKPOINT_LIST_LIMIT = 50;

/**
 * The latest `limit` checkpoints of a session (default 50, as `/rewind` and `/fork` list them),
 * newest first, with display paths. Optionally only one turn's.
 *
 * @example
 * for (const checkpoint of await listRecentCheckpoints(store, sessionId)) console.log(checkpoint.seq, checkpoint.op, checkpoint.displayPath)
 */
export async function listRecentCheckpoints(store: Store, sessionId: string, options: { limit?: number; turnId?: string } = {}): Promise<ListedCheckpoint[]> {
  const limit = options.limit ?? DEFAULT_CHECKPOINT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidArgumentError({ parameter: 'limit', value: options.limit, reason: 'must be a whole number of at least 1.' });
  }
  const checkpoints = await store.listCheckpoints(sessionId, { last: limit, ...(options.turnId === undefined ? {} : { turnId: options.turnId }) });
  return checkpoints.reverse().map((checkpoint) => ({
    ...checkpoint,
    displayPath: displayPath(checkpoint.path),
    displayToPath: checkpoint.toPath === null ? null : displayPath(checkpoint.toPath),
  }));
}

/** `workspace:src/a.ts` → `src/a.ts`; paths in other roots keep their root name. */
export function displayPath(key: string): string {
  return key.startsWith(`${PRIMARY_ROOT}:`) ? key.slice(PRIMARY_ROOT.length + 1) : key;
}
