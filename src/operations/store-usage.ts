import { z } from 'zod';
import { parseInput, type BlobEncoding, type BlobRecord, type Message, type SessionKind } from '../model/index.js';
import type { StoreFootprintContent, StoreFootprintPart } from '../store/index.js';
import type { OperationContext } from './operation-context.js';

/** One session's share of the store. Blobs shared by several sessions count in each. */
export interface SessionUsage {
  id: string;
  kind: SessionKind;
  title: string;
  /** Messages this session appended (inherited ones count in the session that wrote them). */
  messages: number;
  /** Serialized size of those messages' parts. */
  messageBytes: number;
  checkpoints: number;
  /** Distinct file contents its checkpoints refer to. */
  blobs: number;
  /** Their original size, and what they take stored (compressed, delta-encoded). */
  rawBytes: number;
  storedBytes: number;
}

export interface UsageReport {
  store: {
    path: string;
    /** The backend's record parts (for SQLite: the database file with its WAL and shared-memory files). */
    databaseBytes: number;
    /** Where blob contents are kept (for SQLite: the pack files), dead space not yet reclaimed included. */
    blobFileBytes: number;
    totalBytes: number;
    /** Each part as the backend names it. */
    parts: StoreFootprintPart[];
  };
  blobs: {
    count: number;
    rawBytes: number;
    storedBytes: number;
    /** `raw`: kept as is (incompressible, or waiting for the compress pass); `deflate`: compressed whole; `delta`: against an earlier version. */
    byEncoding: Record<BlobEncoding, { count: number; rawBytes: number; storedBytes: number }>;
    /** Pack bytes on disk that no blob uses any more (GC compacts them away). */
    deadBytes: number;
    /** Blobs stored raw first (a first scan) still waiting for the compress pass, and their bytes. */
    awaitingCompression: { count: number; bytes: number };
  };
  /** What the database holds, when the backend can tell (tables and indexes by their pages). */
  database: {
    /** Each table, index and the free pages, largest first (empty when the backend cannot tell). */
    contents: StoreFootprintContent[];
    rowsBytes: number;
    indexBytes: number;
    freeBytes: number;
    /** The unified diffs stored with checkpoints (part of the checkpoint rows): how many and their text size. */
    patches: { count: number; bytes: number };
  };
  savings: {
    /** What keeping a whole copy of every checkpoint's before and after would take. */
    copiesBytes: number;
    /** Saved because identical contents are stored once (the after of one edit is the before of the next). */
    dedupeBytes: number;
    /** Saved by deflate on whole blobs. */
    compressionBytes: number;
    /** Saved by storing versions as deltas against the previous one. */
    deltaBytes: number;
    /** Stored bytes of the checkpoints' distinct contents. */
    checkpointStoredBytes: number;
    /** copiesBytes / checkpointStoredBytes (null when nothing is stored). */
    ratio: number | null;
  };
  sessions: SessionUsage[];
}

export const StoreUsageRequest = z.object({}).strict();
export type StoreUsageRequest = z.input<typeof StoreUsageRequest>;

/**
 * Where the store's bytes go: on disk by part (the backend's own `footprint`), inside the
 * database by table and index (stored patches among the checkpoint rows), by session, blob counts
 * and encodings (raw, deflated, deltas, dead pack space, the compress backlog), and what dedupe,
 * compression and deltas save. Reads only. A blob several
 * sessions refer to counts in each of their rows.
 *
 * @example
 * const usage = await storeUsage({ waypoint });
 * console.log(usage.store.totalBytes, usage.savings.ratio);
 */
export async function storeUsage(context: OperationContext, request: StoreUsageRequest = {}): Promise<UsageReport> {
  parseInput(StoreUsageRequest, request, 'request');
  const { store } = context.waypoint;
  const path = store.location;
  const records = new Map<string, BlobRecord>((await store.blobs.listRecords()).map((record) => [record.hash, record]));
  const stats = await store.blobs.stats();
  const byEncoding: UsageReport['blobs']['byEncoding'] = { raw: empty(), deflate: empty(), delta: empty() };
  for (const record of records.values()) {
    const bucket = byEncoding[record.encoding];
    bucket.count++;
    bucket.rawBytes += record.size;
    bucket.storedBytes += record.storedSize;
  }

  const sessions = (await store.listSessions()).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const trees = new Map<string, Message[]>();
  const checkpointBlobs = new Set<string>();
  let copiesBytes = 0;
  const patches = { count: 0, bytes: 0 };
  const rows: SessionUsage[] = [];
  for (const session of sessions) {
    if (!trees.has(session.treeId)) trees.set(session.treeId, await store.listTreeMessages(session.treeId));
    const own = trees.get(session.treeId)!.filter((message) => message.sessionId === session.id);
    const withSizes = own.length
      ? await store.getMessages(
          own.map((message) => message.id),
          { parts: 'none' },
        )
      : [];
    const checkpoints = await store.listCheckpoints(session.id);
    const hashes = new Set<string>();
    for (const checkpoint of checkpoints) {
      if (checkpoint.patch !== null) {
        patches.count++;
        patches.bytes += Buffer.byteLength(checkpoint.patch);
      }
      for (const hash of [checkpoint.beforeHash, checkpoint.afterHash]) {
        if (hash === null) continue;
        hashes.add(hash);
        checkpointBlobs.add(hash);
        copiesBytes += records.get(hash)?.size ?? 0;
      }
    }
    const known = [...hashes].map((hash) => records.get(hash)).filter((record): record is BlobRecord => record !== undefined);
    rows.push({
      id: session.id,
      kind: session.kind,
      title: session.title,
      messages: own.length,
      messageBytes: withSizes.reduce((sum, message) => sum + message.parts.reduce((total, part) => total + part.size, 0), 0),
      checkpoints: checkpoints.length,
      blobs: hashes.size,
      rawBytes: known.reduce((sum, record) => sum + record.size, 0),
      storedBytes: known.reduce((sum, record) => sum + record.storedSize, 0),
    });
  }
  const distinct = [...checkpointBlobs].map((hash) => records.get(hash)).filter((record): record is BlobRecord => record !== undefined);
  const distinctRaw = distinct.reduce((sum, record) => sum + record.size, 0);
  const checkpointStoredBytes = distinct.reduce((sum, record) => sum + record.storedSize, 0);
  const footprint = await store.footprint();
  const bytesOf = (kind: StoreFootprintPart['kind']) => footprint.parts.filter((part) => part.kind === kind).reduce((sum, part) => sum + part.bytes, 0);
  const contents = footprint.parts.filter((part) => part.kind === 'database').flatMap((part) => part.contents ?? []);
  const contentBytes = (kind: StoreFootprintContent['kind']) => contents.filter((item) => item.kind === kind).reduce((sum, item) => sum + item.bytes, 0);
  const backlog = await context.waypoint.blobs.compressionBacklog();
  return {
    store: {
      path,
      databaseBytes: bytesOf('database') + bytesOf('other'),
      blobFileBytes: bytesOf('blobs'),
      totalBytes: footprint.totalBytes,
      parts: footprint.parts,
    },
    blobs: {
      count: stats.blobCount,
      rawBytes: stats.rawBytes,
      storedBytes: stats.storedBytes,
      byEncoding,
      deadBytes: Math.max(0, stats.footprintBytes - stats.storedBytes),
      awaitingCompression: { count: backlog.blobs, bytes: backlog.bytes },
    },
    database: { contents, rowsBytes: contentBytes('table'), indexBytes: contentBytes('index'), freeBytes: contentBytes('free'), patches },
    savings: {
      copiesBytes,
      dedupeBytes: Math.max(0, copiesBytes - distinctRaw),
      compressionBytes: byEncoding.deflate.rawBytes - byEncoding.deflate.storedBytes,
      deltaBytes: byEncoding.delta.rawBytes - byEncoding.delta.storedBytes,
      checkpointStoredBytes,
      ratio: checkpointStoredBytes > 0 ? copiesBytes / checkpointStoredBytes : null,
    },
    sessions: rows,
  };
}

function empty() {
  return { count: 0, rawBytes: 0, storedBytes: 0 };
}
