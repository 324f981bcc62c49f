import { hostId } from '../../model/index.js';
import { randomUUID } from 'node:crypto';
import type { Checkpoint, JsonObject } from '../../model/index.js';
import type { NewCheckpoint } from '../store.js';
import type { BlobSweepResult, NewWriteIntent, WriteIntent, WriteIntentFile } from '../write-intent.js';
import type { PackBlobStorage } from './blobs/pack-blob-storage.js';
import { addCheckpointRows } from './checkpoints.js';
import { writeIntentRoots } from './intent-roots.js';
import { addRecordRoots } from './ledgers.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Writes in flight (`write_intents`, migration 2): pins for blobs stored before the row that names
 * them, and the pending checkpoints of a tool or fs write, which recovery completes or drops after
 * a crash by looking at the files. See `Store.recordWriteIntent`.
 */

interface WriteIntentRow {
  id: string;
  session_id: string | null;
  pid: number;
  host: string;
  hashes: string;
  checkpoints: string;
  files: string;
  exec: string | null;
  created_at: number;
}

/** Migration 4: the exec capture in flight an intent stands for (JSON, null for writes and pins). */
export const WRITE_INTENTS_EXEC_SQL = 'ALTER TABLE write_intents ADD COLUMN exec TEXT';

export const WRITE_INTENTS_SQL = `
CREATE TABLE write_intents (
  id TEXT PRIMARY KEY,
  session_id TEXT,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  hashes TEXT NOT NULL,
  checkpoints TEXT NOT NULL DEFAULT '[]',
  files TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL
) STRICT;
`;

const HOST = hostId();

export function recordWriteIntent(context: SqliteContext, intent: NewWriteIntent): WriteIntent {
  const now = Date.now();
  const row: WriteIntentRow = {
    id: intent.id ?? `wri_${randomUUID()}`,
    session_id: intent.sessionId ?? null,
    pid: process.pid,
    host: HOST,
    hashes: JSON.stringify([...new Set(intent.hashes)]),
    checkpoints: JSON.stringify(intent.checkpoints ?? []),
    files: JSON.stringify(intent.files ?? []),
    exec: intent.exec ? JSON.stringify(intent.exec) : null,
    created_at: now,
  };
  context.write('record a write in flight', () => {
    context
      .statement(
        `INSERT INTO write_intents (id, session_id, pid, host, hashes, checkpoints, files, exec, created_at)
         VALUES (@id, @session_id, @pid, @host, @hashes, @checkpoints, @files, @exec, @created_at)`,
      )
      .run(row);
  });
  return toWriteIntent(row);
}

export function finishWriteIntent(context: SqliteContext, id: string, checkpoints: NewCheckpoint[], options: { onlyIfPending?: boolean } = {}): Checkpoint[] {
  const now = Date.now();
  return context.write(checkpoints.length > 0 ? 'record checkpoints' : 'finish a write in flight', () => {
    const removed = context.statement('DELETE FROM write_intents WHERE id = ?').run(id).changes;
    // Another process finished it first (two recoveries of one killed capture): its rows stand.
    if (removed === 0 && options.onlyIfPending) return [];
    return checkpoints.length > 0 ? addCheckpointRows(context, checkpoints, now) : [];
  });
}

export function listWriteIntents(context: SqliteContext): WriteIntent[] {
  return (context.statement('SELECT * FROM write_intents ORDER BY created_at, id').all() as WriteIntentRow[]).map(toWriteIntent);
}

/** Packs with less live data than this after a GC's sweep are rewritten. */
const GC_MIN_LIVE_RATIO = 0.9;

/**
 * The sweep's write transaction: intents of dead processes that change no files are expired, the
 * roots are read again, and only candidates still unreachable are deleted (delta bases of blobs
 * that stay are kept); then packs are compacted outside the transaction: a GC is run at idle or on
 * request, so any pack that lost a tenth of its bytes is rewritten (writes alone wait for half).
 */
export async function sweepBlobs(context: SqliteContext, storage: PackBlobStorage, candidates: readonly string[]): Promise<BlobSweepResult> {
  if (candidates.length === 0) return { deleted: [], spared: [], freedBytes: 0 };
  const result = context.write('sweep blobs', () => {
    const roots = addRecordRoots(context, writeIntentRoots(context, { expire: true }));
    return storage.deleteUnreferencedInTransaction(candidates, roots);
  });
  if (result.deleted.length > 0) await storage.compact({ minLiveRatio: GC_MIN_LIVE_RATIO });
  return result;
}

function toWriteIntent(row: WriteIntentRow): WriteIntent {
  return {
    id: row.id,
    sessionId: row.session_id,
    pid: row.pid,
    host: row.host,
    hashes: JSON.parse(row.hashes) as string[],
    checkpoints: JSON.parse(row.checkpoints) as NewCheckpoint[],
    files: JSON.parse(row.files) as WriteIntentFile[],
    exec: row.exec === null || row.exec === undefined ? null : (JSON.parse(row.exec) as JsonObject),
    createdAt: row.created_at,
  };
}
