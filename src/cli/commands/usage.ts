import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Waypoint } from '../../engine/index.js';
import type { BlobEncoding, BlobRecord, Message, SessionKind } from '../../model/index.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatBytes, plural, table } from '../render/format.js';

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
    /** The SQLite file with its WAL and shared-memory files. */
    databaseBytes: number;
    /** Blob pack files, dead space not yet reclaimed included. */
    blobFileBytes: number;
    totalBytes: number;
  };
  blobs: {
    count: number;
    rawBytes: number;
    storedBytes: number;
    byEncoding: Record<BlobEncoding, { count: number; rawBytes: number; storedBytes: number }>;
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

/** Where the store's bytes go: by session, blob counts and encodings, and what dedupe and deltas save. */
export async function storeUsage(waypoint: Waypoint): Promise<UsageReport> {
  const { store } = waypoint;
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
  const rows: SessionUsage[] = [];
  for (const session of sessions) {
    if (!trees.has(session.treeId)) trees.set(session.treeId, await store.listTreeMessages(session.treeId));
    const own = trees.get(session.treeId)!.filter((message) => message.sessionId === session.id);
    const withSizes = own.length ? await store.getMessages(own.map((message) => message.id), { parts: 'none' }) : [];
    const checkpoints = await store.listCheckpoints(session.id);
    const hashes = new Set<string>();
    for (const checkpoint of checkpoints) {
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
  const databaseBytes = ['', '-wal', '-shm'].reduce((sum, suffix) => sum + fileSize(`${path}${suffix}`), 0);
  const blobFileBytes = directorySize(`${path}.blobs`);
  return {
    store: { path, databaseBytes, blobFileBytes, totalBytes: databaseBytes + blobFileBytes },
    blobs: { count: stats.blobCount, rawBytes: stats.rawBytes, storedBytes: stats.storedBytes, byEncoding },
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

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function directorySize(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => sum + (entry.isDirectory() ? directorySize(join(dir, entry.name)) : fileSize(join(dir, entry.name))), 0);
}

export function renderUsage(report: UsageReport): string[] {
  const { store, blobs, savings } = report;
  const lines = [
    `Store ${store.path}: ${formatBytes(store.totalBytes)} on disk (database ${formatBytes(store.databaseBytes)}, blob packs ${formatBytes(store.blobFileBytes)})`,
    `Blobs: ${plural(blobs.count, 'blob')}, ${formatBytes(blobs.rawBytes)} of content stored in ${formatBytes(blobs.storedBytes)}`,
    ...(['raw', 'deflate', 'delta'] as const)
      .filter((encoding) => blobs.byEncoding[encoding].count > 0)
      .map((encoding) => `  ${encoding.padEnd(8)} ${String(blobs.byEncoding[encoding].count).padStart(6)}  ${formatBytes(blobs.byEncoding[encoding].rawBytes)} → ${formatBytes(blobs.byEncoding[encoding].storedBytes)}`),
    `Savings: a whole copy of every checkpoint's before and after would take ${formatBytes(savings.copiesBytes)}; stored: ${formatBytes(savings.checkpointStoredBytes)}${savings.ratio === null ? '' : ` (${savings.ratio.toFixed(1)}× smaller)`}`,
    `  dedupe ${formatBytes(savings.dedupeBytes)}, compression ${formatBytes(savings.compressionBytes)}, deltas ${formatBytes(savings.deltaBytes)}`,
    '',
  ];
  if (report.sessions.length === 0) return [...lines, 'No sessions.'];
  lines.push(
    ...table([
      ['SESSION', 'KIND', 'MESSAGES', 'CHECKPOINTS', 'BLOBS', 'CONTENT', 'STORED', 'TITLE'],
      ...report.sessions.map((session) => [
        session.id,
        session.kind,
        `${session.messages} (${formatBytes(session.messageBytes)})`,
        String(session.checkpoints),
        String(session.blobs),
        formatBytes(session.rawBytes),
        formatBytes(session.storedBytes),
        JSON.stringify(session.title),
      ]),
    ]),
  );
  return lines;
}

export const usageCommand = defineCommand({
  name: 'usage',
  synopsis: ['usage'],
  summary: 'store size by session, blob count, content vs stored bytes, what dedupe, compression and deltas save',
  description: ['A blob several sessions refer to counts in each of their rows.'],
  flags: {},
  positionals: { min: 0, max: 0 },
  async run(context) {
    const report = await withWaypoint(context, storeUsage);
    return { data: report, text: renderUsage(report) };
  },
});
