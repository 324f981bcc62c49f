import { storeUsage, type UsageReport } from '../../operations/index.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatBytes, plural, table } from '../render/format.js';

export function renderUsage(report: UsageReport): string[] {
  const { store, blobs, savings, database } = report;
  const lines = [
    `Store ${store.path}: ${formatBytes(store.totalBytes)} on disk (database ${formatBytes(store.databaseBytes)}, blob packs ${formatBytes(store.blobFileBytes)})`,
    `Blobs: ${plural(blobs.count, 'blob')}, ${formatBytes(blobs.rawBytes)} of content stored in ${formatBytes(blobs.storedBytes)}`,
    ...(['raw', 'deflate', 'delta'] as const)
      .filter((encoding) => blobs.byEncoding[encoding].count > 0)
      .map(
        (encoding) =>
          `  ${ENCODING_LABELS[encoding].padEnd(12)} ${String(blobs.byEncoding[encoding].count).padStart(6)}  ${formatBytes(blobs.byEncoding[encoding].rawBytes)} → ${formatBytes(blobs.byEncoding[encoding].storedBytes)}`,
      ),
    ...(blobs.deadBytes > 0 ? [`  dead pack space ${formatBytes(blobs.deadBytes)} (gc compacts it away)`] : []),
    ...(blobs.awaitingCompression.count > 0
      ? [
          `  ${plural(blobs.awaitingCompression.count, 'blob')} (${formatBytes(blobs.awaitingCompression.bytes)}) stored raw, waiting for the compress pass (gc runs it)`,
        ]
      : []),
    ...renderDatabase(database),
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

const ENCODING_LABELS = { raw: 'raw', deflate: 'compressed', delta: 'delta' } as const;

/** The database by table and index, the largest first (the rest summed), stored patches noted. */
function renderDatabase(database: UsageReport['database']): string[] {
  if (database.contents.length === 0) return [];
  const shown = database.contents.slice(0, 8);
  const rest = database.contents.slice(shown.length).reduce((sum, item) => sum + item.bytes, 0);
  return [
    `Database: rows ${formatBytes(database.rowsBytes)}, indexes ${formatBytes(database.indexBytes)}${database.freeBytes > 0 ? `, free ${formatBytes(database.freeBytes)}` : ''}`,
    ...shown.map(
      (item) =>
        `  ${item.name.padEnd(32)} ${item.kind.padEnd(6)} ${formatBytes(item.bytes).padStart(10)}${item.name === 'checkpoints' && database.patches.count > 0 ? `  (patches ${formatBytes(database.patches.bytes)} in ${database.patches.count})` : ''}`,
    ),
    ...(rest > 0 ? [`  ${`${database.contents.length - shown.length} more`.padEnd(39)} ${formatBytes(rest).padStart(10)}`] : []),
  ];
}

export const usageCommand = defineCommand({
  name: 'usage',
  synopsis: ['usage'],
  summary: "where the store's bytes go: blobs by encoding, database tables and indexes, stored patches, sessions, what dedupe, compression and deltas save",
  description: ['A blob several sessions refer to counts in each of their rows.'],
  flags: {},
  positionals: { min: 0, max: 0 },
  async run(context) {
    const report = await withWaypoint(context, (waypoint) => storeUsage({ waypoint }));
    return { data: report, text: renderUsage(report) };
  },
});
