import { isStoreFile, storeLabel } from '../../engine/index.js';
import { existsSync } from 'node:fs';
import { integerFlag } from '../args.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatTime, plural, table } from '../render/format.js';
import { listSessionRows, sessionKindLabel, type SessionRow } from '../render/session-rows.js';

export const sessionsFlags = {
  limit: { type: 'string', value: 'n', description: 'only the newest n sessions' },
} as const;

export interface SessionsReport {
  store: string;
  sessions: SessionRow[];
}

export function renderSessions(report: SessionsReport): string[] {
  if (report.sessions.length === 0) return [`No sessions in ${report.store}.`];
  return table([
    ['ID', 'KIND', 'TITLE', 'CREATED', 'HEAD', 'TURNS'],
    ...report.sessions.map((row) => [
      row.id,
      sessionKindLabel(row),
      JSON.stringify(row.title),
      formatTime(row.createdAt),
      row.headMessageId === null ? '(empty)' : `${row.headMessageId} (${plural(row.messages, 'message')})`,
      String(row.turns),
    ]),
  ]);
}

export const sessionsCommand = defineCommand({
  name: 'sessions',
  synopsis: ['sessions [--limit <n>]'],
  summary: 'list the sessions: id, kind, title, created, head and turns',
  description: [
    'Oldest first. A store that does not exist yet lists no sessions (and is not created).',
    'KIND `subagent` is the transcript of a subagent a tool call ran (`waypoint log` shows whose); --json rows carry that link as `subagent`.',
  ],
  flags: sessionsFlags,
  positionals: { min: 0, max: 0 },
  async run(context, args) {
    const limit = args.flags.limit === undefined ? undefined : integerFlag('limit', args.flags.limit, 50);
    const report: SessionsReport = {
      store: storeLabel(context.storePath),
      sessions:
        !isStoreFile(context.storePath) || existsSync(context.storePath)
          ? await withWaypoint(context, (waypoint) => listSessionRows(waypoint, limit === undefined ? {} : { limit }))
          : [],
    };
    return { data: report, text: renderSessions(report) };
  },
});
