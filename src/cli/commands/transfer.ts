import { resolve } from 'node:path';
import { isStoreFile, openWaypoint, storeLabel } from '../../engine/index.js';
import { existsSync } from 'node:fs';
import { exportSession, importSession, type ExportSessionResult, type ImportSessionResult, type TransferProgress } from '../../operations/index.js';
import type { ImportRecordCounts } from '../../store/index.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint, type CommandContext } from '../command.js';
import { formatBytes, plural } from '../render/format.js';

/** A `--to`/`--from` value as the operations take it: a URL as given, a path made absolute. */
function location(context: CommandContext, value: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : resolve(context.cwd, value);
}

/** Progress on stderr: records, then blob bytes, then the commit. */
function progressReporter(context: CommandContext, label: string) {
  const progress = context.output.progress(label);
  let phase = '';
  return {
    onProgress(update: TransferProgress) {
      if (update.phase !== phase) {
        phase = update.phase;
        progress.step(phase === 'records' ? 'reading records' : phase === 'blobs' ? 'copying file contents' : 'committing');
      }
      if (update.total > 0) progress.update(update.done, update.total);
    },
    done: (summary: string) => progress.done(summary),
  };
}

function counts(records: Partial<ImportRecordCounts>): string {
  return `${plural(records.sessions ?? 0, 'session')}, ${plural(records.messages ?? 0, 'message')}, ${plural(records.turns ?? 0, 'turn')}, ${plural(records.checkpoints ?? 0, 'checkpoint')}, ${plural(records.entries ?? 0, 'entry', 'entries')}, ${plural(records.effects ?? 0, 'effect')}`;
}

export function renderImport(report: ExportSessionResult | ImportSessionResult, where: string): string[] {
  if (!('records' in report)) return [];
  const lines = report.alreadyImported
    ? [`Already imported ${where}: nothing changed (${counts(report.records.existing)} there, identical).`]
    : [
        `Imported ${report.sessionId}${report.family ? ` and its family (${plural(report.sessionIds.length, 'session')})` : ''} ${where}: ${counts(report.records.inserted)} written${Object.values(report.records.existing).some((count) => count > 0) ? ` (${counts(report.records.existing)} there already)` : ''}.`,
      ];
  lines.push(`Blobs: ${report.blobs.total} (${formatBytes(report.blobs.bytes)}), ${report.blobs.stored} stored new, each checked against its hash.`);
  if (report.missingBlobs.length) lines.push(`Warning: ${plural(report.missingBlobs.length, 'blob')} the records name were missing in the source already.`);
  return lines;
}

export function renderExport(result: ExportSessionResult): string[] {
  if (result.to === 'store') return renderImport(result, `into ${result.location}`);
  return [
    `Exported ${result.sessionId}${result.family ? ` and its family (${plural(result.sessionIds.length, 'session')})` : ''} to ${result.path} (${formatBytes(result.bytes)}): ${counts(result.counts)}, ${plural(result.counts.blobs ?? 0, 'blob')}.`,
    ...(result.missingBlobs.length ? [`Warning: ${plural(result.missingBlobs.length, 'blob')} the records name were missing in this store already.`] : []),
    `Import it with: waypoint import ${result.path} [--store <store>]`,
  ];
}

export const exportCommand = defineCommand({
  name: 'export',
  synopsis: ['export <session> [--family] --to <store | file> [--force]'],
  summary: 'copy a session (with --family: its forks, side chats and subagent transcripts) to another store or a portable file',
  description: [
    '--to takes a postgres:// URL, an SQLite store (an existing one, or a new path ending in .db), or any other path for a portable',
    'export file (gzip-compressed JSON lines with the file contents, see docs/export.md). Ids are kept. Copying into a store that',
    'already has the same records changes nothing; one with a different record under the same id refuses (IMPORT_CONFLICT), nothing',
    'written. An existing file is refused unless --force.',
  ],
  flags: {
    to: { type: 'string', value: 'store | file', description: 'where the copy goes' },
    family: { type: 'boolean', description: "the session's whole family: its root, forks, side chats and subagent transcripts" },
    force: { type: 'boolean', description: 'replace an existing export file' },
  },
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const to = args.flags.to;
    if (!to) throw new UsageError('export needs --to <store | file>.', { command: 'export' });
    const progress = progressReporter(context, 'export');
    const result = await withWaypoint(context, (waypoint) =>
      exportSession(
        { waypoint },
        { sessionId: args.positionals[0]!, family: args.flags.family, to: location(context, to), overwrite: args.flags.force },
        { onProgress: progress.onProgress },
      ),
    );
    progress.done(result.to === 'file' ? `wrote ${formatBytes(result.bytes)}` : result.alreadyImported ? 'already there' : 'copied');
    return { data: result, text: renderExport(result) };
  },
});

export const importCommand = defineCommand({
  name: 'import',
  synopsis: ['import <file | store> [--session <id> [--family]]'],
  summary: 'import an export file (or a session from another store) into the store (--store)',
  description: [
    'Every blob is checked against its hash; a damaged or cut-off file is refused (EXPORT_FILE_CORRUPT, EXPORT_FILE_TRUNCATED), and so',
    'is a record that differs from one the store has under the same id (IMPORT_CONFLICT): nothing is written then. The records commit in',
    'one transaction, so an import killed half-way leaves none of them. Importing the same file again changes nothing and says so.',
    'From a store (a postgres:// URL or an SQLite store file), --session names the session to copy.',
  ],
  flags: {
    session: { type: 'string', value: 'id', description: 'the session to copy, when importing from a store' },
    family: { type: 'boolean', description: "with --session: the session's whole family" },
  },
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const from = location(context, args.positionals[0]!);
    const progress = progressReporter(context, 'import');
    // Importing is how a store on a new machine gets its first sessions: a missing store file is created.
    if (isStoreFile(context.storePath) && !existsSync(context.storePath)) await (await openWaypoint({ path: context.storePath })).close();
    const report = await withWaypoint(context, (waypoint) =>
      importSession(
        { waypoint },
        { from, family: args.flags.family, ...(args.flags.session === undefined ? {} : { sessionId: args.flags.session }) },
        { onProgress: progress.onProgress },
      ),
    );
    progress.done(report.alreadyImported ? 'already imported' : 'imported');
    return { data: report, text: renderImport(report, `into ${storeLabel(context.storePath)}`) };
  },
});
