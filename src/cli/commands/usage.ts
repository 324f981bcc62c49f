import { storeUsage, type UsageReport } from '../../operations/index.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatBytes, plural, table } from '../render/format.js';

export function renderUsage(report: UsageReport): string[] {
  const { store, blobs, savings } = report;
  const lines = [
    `Store ${store.path}: ${formatBytes(store.totalBytes)} on disk (database ${formatBytes(store.databaseBytes)}, blob packs ${formatBytes(store.blobFileBytes)})`,
    `Blobs: ${plural(blobs.count, 'blob')}, ${formatBytes(blobs.rawBytes)} of content stored in ${formatBytes(blobs.storedBytes)}`,
    ...(['raw', 'deflate', 'delta'] as const)
      .filter((encoding) => blobs.byEncoding[encoding].count > 0)
      .map(
        (encoding) =>
          `  ${encoding.padEnd(8)} ${String(blobs.byEncoding[encoding].count).padStart(6)}  ${formatBytes(blobs.byEncoding[encoding].rawBytes)} → ${formatBytes(blobs.byEncoding[encoding].storedBytes)}`,
      ),
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
    const report = await withWaypoint(context, (waypoint) => storeUsage({ waypoint }));
    return { data: report, text: renderUsage(report) };
  },
});
