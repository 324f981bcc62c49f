import { DEFAULT_CHECKPOINT_LIST_LIMIT, listRecentCheckpoints, type ListedCheckpoint } from '../../checkpoint/index.js';
import type { Waypoint } from '../../engine/index.js';
import { RewindLedger } from '../../rewind/files/rewind-ledger.js';
import { integerFlag } from '../args.js';
import { defineCommand, withWaypoint } from '../command.js';
import { formatTime, table } from '../render/format.js';

export const checkpointsFlags = {
  limit: { type: 'string', value: 'n', description: `how many of the latest checkpoints (default ${DEFAULT_CHECKPOINT_LIST_LIMIT})` },
  turn: { type: 'string', value: 'turn', description: 'only the checkpoints of this turn' },
} as const;

export interface CheckpointRow extends ListedCheckpoint {
  /** An applied file rewind currently undoes this change (it is not offered again until redone). */
  rewound: boolean;
}

export interface CheckpointsReport {
  sessionId: string;
  limit: number;
  /** Newest first. */
  checkpoints: CheckpointRow[];
}

/** The latest checkpoints of a session, newest first, each marked when a rewind currently undoes it. */
export async function listCheckpointRows(waypoint: Waypoint, sessionId: string, options: { limit?: number; turnId?: string } = {}): Promise<CheckpointsReport> {
  const session = await waypoint.store.getSession(sessionId);
  const limit = options.limit ?? DEFAULT_CHECKPOINT_LIST_LIMIT;
  const listed = await listRecentCheckpoints(waypoint.store, session.id, { limit, ...(options.turnId === undefined ? {} : { turnId: options.turnId }) });
  const rewound = (await RewindLedger.load(waypoint.store, session.id)).rewoundCheckpoints();
  return { sessionId: session.id, limit, checkpoints: listed.map((checkpoint) => ({ ...checkpoint, rewound: rewound.has(checkpoint.id) })) };
}

export function renderCheckpoints(report: CheckpointsReport): string[] {
  if (report.checkpoints.length === 0) return [`Session ${report.sessionId} has no file checkpoints yet.`];
  return table([
    ['#', 'ID', 'OP', 'PATH', 'BY', 'MESSAGE', 'WHEN', 'NOTE'],
    ...report.checkpoints.map((checkpoint) => [
      String(checkpoint.seq),
      checkpoint.id,
      checkpoint.op,
      checkpoint.displayToPath ? `${checkpoint.displayPath} → ${checkpoint.displayToPath}` : checkpoint.displayPath,
      checkpoint.source === 'exec' ? 'shell' : (checkpoint.toolName ?? checkpoint.source),
      checkpoint.anchorMessageId ?? '-',
      formatTime(checkpoint.createdAt),
      [checkpoint.rewound ? 'rewound' : '', checkpoint.status === 'skipped' ? `not kept: ${checkpoint.skipReason ?? 'skipped'}` : '']
        .filter(Boolean)
        .join('; '),
    ]),
  ]);
}

export const checkpointsCommand = defineCommand({
  name: 'checkpoints',
  synopsis: ['checkpoints <session> [--limit <n>] [--turn <turn>]'],
  summary: "a session's latest file checkpoints, newest first: one file change each",
  description: [
    'Ids are what `diff`, `rewind <session> <checkpoint>` and `fork <session> <checkpoint>` take. MESSAGE is the user input of the turn that made the change.',
  ],
  flags: checkpointsFlags,
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const limit = integerFlag('limit', args.flags.limit, DEFAULT_CHECKPOINT_LIST_LIMIT);
    const report = await withWaypoint(context, (waypoint) =>
      listCheckpointRows(waypoint, args.positionals[0]!, { limit, ...(args.flags.turn === undefined ? {} : { turnId: args.flags.turn }) }),
    );
    return { data: report, text: renderCheckpoints(report) };
  },
});
