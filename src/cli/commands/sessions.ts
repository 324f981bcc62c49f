import { existsSync } from 'node:fs';
import type { Waypoint } from '../../engine/index.js';
import { subagentLink, type SubagentLink } from '../../history/index.js';
import type { SessionKind } from '../../model/index.js';
import { integerFlag } from '../args.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatTime, plural, table } from '../render/format.js';

export const sessionsFlags = {
  limit: { type: 'string', value: 'n', description: 'only the newest n sessions' },
} as const;

/** One row of `waypoint sessions`. */
export interface SessionRow {
  id: string;
  /** The stored kind (a subagent's transcript session is stored as a `fork`; see `subagent`). */
  kind: SessionKind;
  /**
   * For a subagent's transcript session: the parent session, turn and tool call that ran it (the
   * table's KIND column says `subagent`). Null for every other session.
   */
  subagent: SubagentLink | null;
  title: string;
  parentSessionId: string | null;
  workdir: string | null;
  createdAt: number;
  headMessageId: string | null;
  /** Messages on the active path. */
  messages: number;
  turns: number;
}

export interface SessionsReport {
  store: string;
  sessions: SessionRow[];
}

/** Every session of the store, oldest first (the newest `limit` when given). */
export async function listSessionRows(waypoint: Waypoint, options: { limit?: number } = {}): Promise<SessionRow[]> {
  const { store } = waypoint;
  let sessions = (await store.listSessions()).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  if (options.limit !== undefined) sessions = sessions.slice(-options.limit);
  const rows: SessionRow[] = [];
  for (const session of sessions) {
    const [turns, head] = await Promise.all([
      store.listTurns(session.id),
      session.headMessageId === null ? Promise.resolve(null) : store.findMessage(session.headMessageId),
    ]);
    rows.push({
      id: session.id,
      kind: session.kind,
      subagent: subagentLink(session),
      title: session.title,
      parentSessionId: session.parentSessionId,
      workdir: session.workdir,
      createdAt: session.createdAt,
      headMessageId: session.headMessageId,
      messages: head === null ? 0 : head.depth + 1,
      turns: turns.length,
    });
  }
  return rows;
}

/** What a person calls a session's kind: `subagent` for a subagent's transcript (stored as a fork), else its stored kind. */
export function sessionKindLabel(row: Pick<SessionRow, 'kind' | 'subagent'>): string {
  return row.subagent ? 'subagent' : row.kind;
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
      store: context.storePath,
      sessions: existsSync(context.storePath) ? await withWaypoint(context, (waypoint) => listSessionRows(waypoint, limit === undefined ? {} : { limit })) : [],
    };
    return { data: report, text: renderSessions(report) };
  },
});
