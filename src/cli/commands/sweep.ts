import { displayPath } from '../../checkpoint/index.js';
import { sweepLeftovers, type SweepLeftoversResult } from '../../operations/index.js';
import { UsageError } from '../cli-errors.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatBytes, plural, table } from '../render/format.js';

export const sweepFlags = {
  'dry-run': { type: 'boolean', description: 'list exactly what would be removed and what is kept, and why; change nothing' },
  'min-age': {
    type: 'string',
    value: 'age',
    description: 'keep leftovers written or renamed less than this long ago: 90s, 30m, 2h, 1d or 0 (default 1h)',
  },
} as const;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--min-age`: `0`, or a whole number with a unit (`90s`, `30m`, `2h`, `1d`), in milliseconds. */
export function parseMinAge(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === '0') return 0;
  const match = /^(\d+)([smhd])$/.exec(value);
  if (!match) throw new UsageError(`--min-age takes 0 or a whole number with a unit (90s, 30m, 2h, 1d), not "${value}"`, { command: 'sweep' });
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** A minimum age as a person reads it (`1h`, `30m`, `0`). */
function formatAge(ms: number): string {
  for (const [unit, size] of Object.entries(UNITS).reverse()) if (ms > 0 && ms % size === 0) return `${ms / size}${unit}`;
  return ms === 0 ? '0' : `${ms} ms`;
}

export function renderSweep(report: SweepLeftoversResult): string[] {
  const lines: string[] = [];
  const would = report.dryRun ? 'would be ' : '';
  const bytes = report.swept.reduce((sum, item) => sum + item.size, 0);
  if (report.dryRun) lines.push('Dry run: nothing was removed or recorded.');
  lines.push(
    `Looked in ${plural(report.directories, 'directory', 'directories')} of ${report.workdir}: ${plural(report.swept.length + report.kept.length, 'leftover file')} of killed writes.`,
  );
  if (report.swept.length > 0) {
    lines.push(`${report.swept.length} ${would}swept (${formatBytes(bytes)}), each content ${report.dryRun ? 'to be ' : ''}kept in the store first:`);
    lines.push(
      ...table(
        report.swept.map((item) => [
          `  ${displayPath(item.path)}`,
          item.kind === 'parked' ? 'replaced content of' : 'unlanded write to',
          item.target === null ? '(name cut)' : displayPath(item.target),
          formatBytes(item.size),
          item.hash.slice(0, 12),
        ]),
      ),
    );
    if (!report.dryRun)
      lines.push(
        `  listed by \`waypoint rewind ${report.sessionId} status\`; put one back at its file with \`waypoint rewind ${report.sessionId} restore <hash>\``,
      );
  }
  if (report.kept.length > 0) {
    lines.push(`${report.kept.length} kept:`);
    lines.push(...table(report.kept.map((item) => [`  ${displayPath(item.path)}`, item.reason, item.detail])));
    if (report.kept.some((item) => item.reason === 'recent'))
      lines.push(`  (leftovers younger than ${formatAge(report.minAgeMs)} may belong to a write still running; --min-age changes that)`);
  }
  for (const directory of report.unreadable) lines.push(`Could not list ${displayPath(directory)}: a leftover there was not seen.`);
  return lines;
}

export const sweepCommand = defineCommand({
  name: 'sweep',
  synopsis: ['sweep <session> [--dry-run] [--min-age <age>]'],
  summary: "remove the hidden .wp-tmp/.wp-old files killed writes left in a session's workspace, keeping their contents",
  description: [
    'A write killed mid-way can leave a hidden temp file (.<name>.<hex>.wp-tmp: content that never landed) or a parked file',
    '(.<name>.<hex>.wp-old: content a compare-and-replace took off the file) beside a file. Recovery removes those its records',
    'name; sweep finds the rest in every directory of the workspace, stores each content and records it in the session (listed by',
    '`waypoint rewind <session> status`, put back with `waypoint rewind <session> restore <hash>`), then removes the file.',
    'Kept: leftovers a pending rewind journal or write in flight names (their recovery owns them), those whose writer still runs,',
    'and those written or renamed less than --min-age ago (default 1h). Runs under the workspace lock: while another process',
    'rewinds or forks in the workspace it is refused with WORKSPACE_BUSY and changes nothing. --dry-run lists exactly what would go.',
  ],
  flags: sweepFlags,
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const minAgeMs = parseMinAge(args.flags['min-age']);
    const request = { sessionId: args.positionals[0]!, dryRun: args.flags['dry-run'], ...(minAgeMs === undefined ? {} : { minAgeMs }) };
    const report = await withWaypoint(context, (waypoint) => sweepLeftovers({ waypoint }, request));
    return { data: report, text: renderSweep(report) };
  },
});
