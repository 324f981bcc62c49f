import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { isStoreFile, openWaypoint, storeLabel, type Waypoint } from '../engine/index.js';
import { InvalidArgumentError } from '../model/index.js';
import { TransferError } from '../transfer/index.js';

/** Where an export goes or an import comes from: a store (a `postgres://` URL or an SQLite store file) or a portable file. */
export type TransferEndpoint = { kind: 'store'; location: string } | { kind: 'file'; path: string };

const SQLITE_HEADER = Buffer.from('SQLite format 3\0');

/**
 * A database URL, an existing SQLite database, or a new path ending in `.db` is a store; any
 * other path is a portable export file. `location` must be absolute (surfaces resolve it).
 */
export function transferEndpoint(location: string): TransferEndpoint {
  if (!isStoreFile(location)) return { kind: 'store', location };
  if (!isAbsolute(location)) throw new InvalidArgumentError({ parameter: 'to', value: location, reason: 'an absolute path is needed.' });
  if (existsSync(location) && statSync(location).isFile() && startsWithSqliteHeader(location)) return { kind: 'store', location };
  if (!existsSync(location) && location.endsWith('.db')) return { kind: 'store', location };
  return { kind: 'file', path: location };
}

function startsWithSqliteHeader(path: string): boolean {
  const descriptor = openSync(path, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(descriptor, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Opens the other store of a transfer, refusing the store already open. An export's target is
 * opened writable (created when it is a new SQLite file); an import's source read-only: reading a
 * session out of a store must not migrate it, nor run its recovery, which would put back files
 * its journals name in directories of the machine it came from. A source that does not exist is
 * refused, never created.
 */
export async function openOtherStore(waypoint: Waypoint, location: string, access: { readOnly: boolean }): Promise<Waypoint> {
  if (location === waypoint.store.location || storeLabel(location) === waypoint.store.location) {
    throw new TransferError({
      code: 'EXPORT_SAME_STORE',
      message: `${storeLabel(location)} is the store the session is in; a copy needs another store or a file.`,
      details: { location: storeLabel(location) },
    });
  }
  if (access.readOnly && isStoreFile(location) && !existsSync(location)) {
    throw new TransferError({
      code: 'IMPORT_SOURCE_NOT_FOUND',
      message: `There is no store at ${location} to import from. Give the path of an existing store, or of an export file.`,
      details: { location },
    });
  }
  return openWaypoint({ path: location, readOnly: access.readOnly });
}
