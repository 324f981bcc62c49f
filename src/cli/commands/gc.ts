import { collectGarbage, GcNeedsConfirmationError, type GarbageReport, type SessionToDelete } from '../../operations/index.js';
import type { BlobStorageStats } from '../../store/index.js';
import { integerFlag } from '../args.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatBytes, formatTime, plural } from '../render/format.js';

export const gcFlags = {
  'dry-run': { type: 'boolean', description: 'report what would be removed and freed; remove nothing' },
  'keep-sessions': {
    type: 'string',
    value: 'n',
    description: 'also delete every session family but the n most recently active (a family: a session, its forks, side chats and subagents)',
  },
  yes: { type: 'boolean', short: 'y', description: 'delete what --keep-sessions selects without asking' },
} as const;

/** The sessions a retention run would delete, one line each (kind, title, the family's last activity). */
export function renderSessionsToDelete(sessions: readonly SessionToDelete[]): string[] {
  return sessions.map(
    (session) =>
      `  ${session.id}  ${session.kind}  ${JSON.stringify(session.title)}${session.lastActivityAt === null ? '  (a subagent transcript whose session is gone)' : `  family last active ${formatTime(session.lastActivityAt)}`}`,
  );
}

/** What `waypoint gc` did (the operation's report). */
export type GcCommandReport = GarbageReport;

export function renderGc(report: GcCommandReport): string[] {
  const would = report.dryRun ? 'would be ' : '';
  const lines: string[] = [];
  if (report.dryRun) lines.push('Dry run: nothing was removed.');
  if (report.keepSessions !== null) {
    lines.push(
      `Sessions: keeping the ${report.keepSessions} most recently active session ${report.keepSessions === 1 ? 'family' : 'families'}; ${plural(report.removedSessions.length, 'session')} ${would}deleted${report.removedSessions.length ? ':' : '.'}`,
    );
    for (const session of report.removedSessions) {
      lines.push(`  ${session.id}  ${session.kind}  ${JSON.stringify(session.title)}  family last active ${formatTime(session.familyLastActivityAt)}`);
      for (const sub of session.subagentSessions) lines.push(`    with its subagent transcript ${sub.id}  ${JSON.stringify(sub.title)}`);
    }
    for (const orphan of report.orphanSubagentSessions)
      lines.push(`  ${orphan.id}  ${JSON.stringify(orphan.title)}  (a subagent transcript whose session is gone)`);
    if (report.dryRun && report.removedSessions.length) lines.push('  (their blobs are not counted below until they are really deleted)');
  }
  lines.push(`Blobs: ${report.gc.scanned} scanned, ${report.gc.live} live, ${report.gc.unreachable.length} unreachable (${would}removed).`);
  lines.push(
    `Freed: ${formatBytes(report.freedBytes)}${report.dryRun ? ' would be freed' : ''} (stored ${formatBytes(report.before.storedBytes)} → ${formatBytes(report.after.storedBytes)}, on disk ${formatBytes(report.before.footprintBytes)} → ${formatBytes(report.after.footprintBytes)}).`,
  );
  const compressed = report.gc.compressed;
  if (compressed && compressed.blobsMoved > 0) {
    lines.push(
      `Compressed: ${plural(compressed.blobsMoved, 'blob')} stored raw first, ${formatBytes(compressed.bytesIn)} → ${formatBytes(compressed.bytesOut)}${compressed.pendingBlobs ? ` (${compressed.pendingBlobs} still waiting)` : ''}.`,
    );
  }
  if (report.gc.missingRoots.length)
    lines.push(
      `Warning: ${plural(report.gc.missingRoots.length, 'blob')} the records refer to ${report.gc.missingRoots.length === 1 ? 'is' : 'are'} missing: ${report.gc.missingRoots.slice(0, 5).join(', ')}${report.gc.missingRoots.length > 5 ? ', …' : ''}`,
    );
  if (report.gc.missingBases.length)
    lines.push(
      `Warning: ${plural(report.gc.missingBases.length, 'delta blob')} lost ${report.gc.missingBases.length === 1 ? 'its' : 'their'} base and cannot be read: ${report.gc.missingBases
        .slice(0, 5)
        .map((entry) => entry.hash)
        .join(', ')}`,
    );
  return lines;
}

export const gcCommand = defineCommand({
  name: 'gc',
  synopsis: ['gc [--dry-run] [--keep-sessions <n> [--yes]]'],
  summary: 'sweep blobs nothing refers to any more (and, with --keep-sessions, delete old sessions first)',
  description: [
    '--keep-sessions <n> keeps the n session families with the latest activity and deletes the others whole (a family: a main session,',
    'its forks and side chats, and the subagent transcripts they ran), so no session goes while one branched from it stays. It lists',
    'them and asks (y/N) on a terminal; elsewhere it is refused with GC_NEEDS_CONFIRMATION (exit code 4) unless --yes. --dry-run lists',
    'exactly what would go and removes nothing.',
    'Safe while sessions write, in this or any other process: a blob is removed only if, when it is deleted,',
    'no checkpoint, journal, message, pin or write in flight refers to it (writes pin what they store until',
    'their records commit; pins of processes that died expire). Content being captured is never swept.',
  ],
  flags: gcFlags,
  positionals: { min: 0, max: 0 },
  async run(context, args) {
    const keep = args.flags['keep-sessions'] === undefined ? undefined : integerFlag('keep-sessions', args.flags['keep-sessions'], 1, 1);
    const dryRun = args.flags['dry-run'];
    const progress = context.output.progress('gc');
    const request = { dryRun, ...(keep === undefined ? {} : { keepSessions: keep }), ...(args.flags.yes ? { confirm: true as const } : {}) };
    const onStart = (before: BlobStorageStats) =>
      progress.step(
        `${plural(before.blobCount, 'blob')} (${formatBytes(before.storedBytes)} stored); marking what the records reach${dryRun ? ' (dry run)' : ''}`,
      );
    const report = await withWaypoint(context, async (waypoint) => {
      try {
        return await collectGarbage({ waypoint }, request, { onStart });
      } catch (error) {
        if (!(error instanceof GcNeedsConfirmationError)) throw error;
        const sessions = [...error.sessions];
        if (!context.confirm) {
          if (!context.json) for (const line of ['Would delete:', ...renderSessionsToDelete(sessions)]) context.output.print(line);
          throw new GcNeedsConfirmationError({
            keepSessions: keep!,
            sessions,
            hint: 'Run it again with --yes to delete them, or on a terminal to be asked; --dry-run lists them.',
          });
        }
        for (const line of [`gc would delete ${plural(sessions.length, 'session')}:`, ...renderSessionsToDelete(sessions)]) context.output.note(line);
        if (!(await context.confirm(`Delete ${sessions.length === 1 ? 'it' : 'them'}?`))) return null;
        return collectGarbage({ waypoint }, { ...request, confirm: sessions.map((session) => session.id) }, { onStart });
      }
    });
    if (report === null) {
      progress.done();
      return { data: { type: 'cancelled' }, text: ['gc cancelled; nothing was deleted.'] };
    }
    progress.done(
      `${plural(report.gc.unreachable.length, 'blob')} ${dryRun ? 'unreachable' : 'swept'}, ${formatBytes(report.gc.freedBytes)} ${dryRun ? 'to free' : 'freed'}${report.databaseFreedBytes > 0 ? `; database ${formatBytes(report.databaseFreedBytes)} smaller` : ''}`,
    );
    return { data: report, text: renderGc(report) };
  },
});
