import { BlobStore } from '../blobs/index.js';
import { recoverWriteIntents, type WriteRecoveryReport } from '../checkpoint/index.js';
import { SessionHistory } from '../history/index.js';
import { FileRewinder, TaskRegistry, recoverJournals, type RecoveryReport } from '../rewind/index.js';
import { parseInput } from '../model/index.js';
import type { Store } from '../store/index.js';
import { keptFilesOf } from '../workspace/index.js';
import { OpenWaypointOptionsSchema } from './open-waypoint-options.js';
import { defaultStoreLocation, openStore } from './store-location.js';

export interface OpenWaypointOptions {
  /**
   * The store: a file path, or a `postgres://user:password@host/db[?schema=name]` URL for a store
   * several machines share. Defaults to `defaultStoreLocation()` (`$WAYPOINT_STORE`, else
   * `$WAYPOINT_HOME` or `~/.waypoint`).
   */
  path?: string;
  readOnly?: boolean;
  busyTimeoutMs?: number;
}

/** The engine, wired: one store and the services over it. */
export interface Waypoint {
  store: Store;
  blobs: BlobStore;
  history: SessionHistory;
  files: FileRewinder;
  tasks: TaskRegistry;
  /** What opening recovered from an earlier crash (null when opened read-only). */
  recovery: RecoveryReport | null;
  /** Tool and fs writes an earlier crash left in flight, completed or dropped (null when opened read-only). */
  recoveredWrites: WriteRecoveryReport | null;
  close(): Promise<void>;
}

/**
 * Opens a store and makes it safe to use: unfinished file rewinds left by a crash are rolled back
 * before anything else runs, so every file is wholly before or wholly after and the store agrees;
 * tool and fs writes a crash interrupted after their file changed get their checkpoints
 * (`recoverWriteIntents`). Journals and writes of a still-running process are left alone. Options
 * of the wrong type are refused with `INVALID_ARGUMENT`; a path where no store can be created with
 * `STORE_PATH_UNUSABLE`.
 *
 * @example
 * const waypoint = await openWaypoint({ path: '/tmp/w/waypoint.db' });
 * const session = await waypoint.history.createSession({ workdir: process.cwd() });
 * await waypoint.close();
 */
export async function openWaypoint(options: OpenWaypointOptions = {}): Promise<Waypoint> {
  parseInput(OpenWaypointOptionsSchema, options, 'options');
  const store = await openStore(options.path ?? defaultStoreLocation(), {
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  try {
    const blobs = new BlobStore(store);
    const recovery = store.readOnly ? null : await recoverJournals(store, undefined, { blobs });
    // A write killed between changing a file and recording it: recorded now, so what it overwrote stays referenced.
    const recoveredWrites = store.readOnly ? null : await recoverWriteIntents(store, blobs);
    return {
      store,
      blobs,
      history: new SessionHistory(store),
      files: new FileRewinder({ store, blobs }),
      tasks: new TaskRegistry(),
      recovery,
      recoveredWrites,
      close: async () => {
        // The files its rewinds kept for reuse go with it (their contents are in the store).
        if (store.capabilities.blobFiles) keptFilesOf(store.location).clear();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
