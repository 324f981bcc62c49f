import { randomUUID } from 'node:crypto';
import { hostId, isProcessAlive, type Checkpoint, type JsonObject } from '../../model/index.js';
import type { NewCheckpoint, WorkspaceLockHolder, WorkspaceLockRequest } from '../store.js';
import type { BlobSweepResult, NewWriteIntent, WriteIntent, WriteIntentFile } from '../write-intent.js';
import { exclusiveRootsLock, shareRootsLock, type PgContext, type Sql } from './pg-context.js';
import { BLOB_ROOTS_QUERY, addCheckpointRows } from './pg-records.js';

/** Writes in flight, the sweep that respects them, and workspace locks: the records that belong to one machine. */

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

export async function recordWriteIntent(context: PgContext, intent: NewWriteIntent): Promise<WriteIntent> {
  const row: WriteIntentRow = {
    id: intent.id ?? `wri_${randomUUID()}`,
    session_id: intent.sessionId ?? null,
    pid: process.pid,
    host: hostId(),
    hashes: JSON.stringify([...new Set(intent.hashes)]),
    checkpoints: JSON.stringify(intent.checkpoints ?? []),
    files: JSON.stringify(intent.files ?? []),
    exec: intent.exec ? JSON.stringify(intent.exec) : null,
    created_at: Date.now(),
  };
  await context.write('record a write in flight', async (sql) => {
    await shareRootsLock(sql, context.schema);
    await sql.query(
      `INSERT INTO write_intents (id, session_id, pid, host, hashes, checkpoints, files, exec, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.id, row.session_id, row.pid, row.host, row.hashes, row.checkpoints, row.files, row.exec, row.created_at],
    );
  });
  return toWriteIntent(row);
}

export async function finishWriteIntent(
  context: PgContext,
  id: string,
  checkpoints: NewCheckpoint[],
  options: { onlyIfPending?: boolean },
): Promise<Checkpoint[]> {
  const now = Date.now();
  return context
    .write(checkpoints.length > 0 ? 'record checkpoints' : 'finish a write in flight', async (sql) => {
      // Checkpoints first (they lock their sessions, then the roots lock), so the intent's pins go in the same commit that adds the rows.
      const rows = checkpoints.length > 0 ? await addCheckpointRows(sql, context.schema, checkpoints, now) : [];
      const removed = (await sql.query('DELETE FROM write_intents WHERE id = $1', [id])).rowCount ?? 0;
      if (removed === 0 && options.onlyIfPending) {
        // Another process finished it first (two recoveries of one killed capture): its rows stand,
        // these are rolled back.
        throw new NothingToFinish();
      }
      return rows;
    })
    .catch((error: unknown) => {
      if (error instanceof NothingToFinish) return [];
      throw error;
    });
}

class NothingToFinish extends Error {}

export async function listWriteIntents(context: PgContext): Promise<WriteIntent[]> {
  return (await context.query<WriteIntentRow>('list writes in flight', 'SELECT * FROM write_intents ORDER BY created_at, id COLLATE "C"')).map(toWriteIntent);
}

/**
 * Hashes pinned by writes in flight. A plain pin (no files, no exec capture) of a process of this
 * host that is gone has expired; with `expire` it is deleted. Another host's intents always count:
 * its processes cannot be checked from here.
 */
async function writeIntentRoots(sql: Sql, expire: boolean): Promise<Set<string>> {
  const roots = new Set<string>();
  const here = hostId();
  const { rows } = await sql.query<{ id: string; pid: number; host: string; hashes: string; plain: boolean }>(
    "SELECT id, pid, host, hashes, (files = '[]' AND exec IS NULL) AS plain FROM write_intents",
  );
  for (const row of rows) {
    if (row.plain && row.host === here && !isProcessAlive(row.pid)) {
      if (expire) await sql.query('DELETE FROM write_intents WHERE id = $1', [row.id]);
      continue;
    }
    for (const hash of JSON.parse(row.hashes) as string[]) roots.add(hash);
  }
  return roots;
}

export async function blobRoots(context: PgContext): Promise<Set<string>> {
  return context.read('collect blob roots', async (sql) => {
    const roots = await writeIntentRoots(sql, false);
    for (const row of (await sql.query<{ hash: string }>(BLOB_ROOTS_QUERY)).rows) roots.add(row.hash);
    return roots;
  });
}

/**
 * The sweep: under the exclusive roots lock (every transaction adding a reference has committed,
 * none can start), expire dead plain intents, read the roots, and delete the candidates that are
 * unreachable and no kept blob's delta base, directly or down a chain. Chunks go with their rows.
 */
export async function sweepBlobs(context: PgContext, candidates: readonly string[]): Promise<BlobSweepResult> {
  if (candidates.length === 0) return { deleted: [], spared: [], freedBytes: 0 };
  const unique = [...new Set(candidates)];
  return context.write('sweep blobs', async (sql) => {
    await exclusiveRootsLock(sql, context.schema);
    const roots = await writeIntentRoots(sql, true);
    for (const row of (await sql.query<{ hash: string }>(BLOB_ROOTS_QUERY)).rows) roots.add(row.hash);
    const present = new Set((await sql.query<{ hash: string }>('SELECT hash FROM blobs WHERE hash = ANY($1::text[])', [unique])).rows.map((row) => row.hash));
    const doomed = new Set([...present].filter((hash) => !roots.has(hash)));
    for (;;) {
      const { rows } = await sql.query<{ base_hash: string }>(
        'SELECT DISTINCT base_hash FROM blobs WHERE base_hash = ANY($1::text[]) AND NOT (hash = ANY($1::text[]))',
        [[...doomed]],
      );
      if (rows.length === 0) break;
      for (const row of rows) doomed.delete(row.base_hash);
    }
    const { rows } = await sql.query<{ freed: number }>(
      'WITH gone AS (DELETE FROM blobs WHERE hash = ANY($1::text[]) RETURNING stored_size) SELECT COALESCE(SUM(stored_size), 0)::bigint AS freed FROM gone',
      [[...doomed]],
    );
    const spared = unique.filter((hash) => present.has(hash) && !doomed.has(hash));
    return { deleted: [...doomed], spared, freedBytes: rows[0]!.freed };
  });
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
    exec: row.exec === null ? null : (JSON.parse(row.exec) as JsonObject),
    createdAt: row.created_at,
  };
}

interface LockRow {
  host: string;
  path: string;
  owner: string;
  pid: number;
  purpose: string;
  acquired_at: number;
}

/**
 * Takes every lock of `request` in one transaction, or none. Locks belong to the requesting host:
 * only rows of that host can block (the same path on another machine is another directory), and
 * acquisitions of one host serialize on an advisory lock, so two processes never both see the
 * paths free. A stale holder (`isStale`) is taken over.
 */
export async function acquireWorkspaceLocks(
  context: PgContext,
  request: WorkspaceLockRequest,
  isStale: (holder: WorkspaceLockHolder) => boolean,
): Promise<WorkspaceLockHolder | null> {
  return context.write('take a workspace lock', async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`waypoint:${context.schema}:workspace-locks:${request.host}`]);
    const { rows } = await sql.query<LockRow>('SELECT * FROM workspace_locks WHERE host = $1', [request.host]);
    const stale = new Set<string>();
    for (const row of rows) {
      if (row.owner === request.owner || stale.has(row.owner)) continue;
      if (!request.paths.some((path) => overlaps(path, row.path))) continue;
      const holder: WorkspaceLockHolder = { path: row.path, owner: row.owner, pid: row.pid, host: row.host, purpose: row.purpose, acquiredAt: row.acquired_at };
      if (!isStale(holder)) return holder;
      stale.add(row.owner);
    }
    if (stale.size > 0) await sql.query('DELETE FROM workspace_locks WHERE owner = ANY($1::text[])', [[...stale]]);
    const now = Date.now();
    for (const path of new Set(request.paths)) {
      await sql.query(
        `INSERT INTO workspace_locks (host, path, owner, pid, purpose, acquired_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (host, path) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, purpose = excluded.purpose, acquired_at = excluded.acquired_at`,
        [request.host, path, request.owner, request.pid, request.purpose, now],
      );
    }
    return null;
  });
}

export async function releaseWorkspaceLocks(context: PgContext, owner: string): Promise<void> {
  await context.write('release a workspace lock', async (sql) => {
    await sql.query('DELETE FROM workspace_locks WHERE owner = $1', [owner]);
  });
}

function overlaps(a: string, b: string): boolean {
  const inside = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
  return inside(a, b) || inside(b, a);
}
