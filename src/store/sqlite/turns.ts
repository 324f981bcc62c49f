import { InvalidArgumentError, NotFoundError, newId, type Turn } from '../../model/index.js';
import type { CreateTurnInput, UpdateTurnInput } from '../store.js';
import { jsonOf } from './entries.js';
import { packJson, unpackJson } from './packed-json.js';
import { toTurn, type StoredTurnRow, type TurnRow } from './rows.js';
import { requireMessageRow, requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

export function createTurn(context: SqliteContext, input: CreateTurnInput): Turn {
  const now = Date.now();
  return context.write('start a turn', () => {
    const session = requireSession(context, input.sessionId);
    const message = requireMessageRow(context, input.userMessageId);
    if (message.tree_id !== session.tree_id || message.role !== 'user') {
      throw new InvalidArgumentError({
        parameter: 'userMessageId',
        value: input.userMessageId,
        reason: 'a turn starts at a user message of the same session tree.',
      });
    }
    const row: TurnRow = {
      id: input.id ?? newId('turn', now),
      session_id: session.id,
      user_message_id: message.id,
      status: 'running',
      branch_generation: session.branch_generation,
      boundary: null,
      metadata: jsonOf(input.metadata),
      started_at: now,
      ended_at: null,
    };
    context
      .statement(
        `INSERT INTO turns (id, session_id, user_message_id, status, branch_generation, boundary, metadata, started_at, ended_at)
         VALUES (@id, @session_id, @user_message_id, @status, @branch_generation, @boundary, @metadata, @started_at, @ended_at)`,
      )
      .run({ ...row, metadata: packJson(row.metadata) });
    return toTurn(row);
  });
}

function requireTurn(context: SqliteContext, id: string): TurnRow {
  const row = context.statement('SELECT * FROM turns WHERE id = ?').get(id) as StoredTurnRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'turn', id });
  return { ...row, metadata: unpackJson(row.metadata) };
}

export function updateTurn(context: SqliteContext, id: string, patch: UpdateTurnInput): Turn {
  return context.write('update a turn', () => {
    const row = requireTurn(context, id);
    const next: TurnRow = {
      ...row,
      status: patch.status ?? row.status,
      boundary: patch.boundary === undefined ? row.boundary : patch.boundary === null ? null : JSON.stringify(patch.boundary),
      metadata: patch.metadata === undefined ? row.metadata : JSON.stringify({ ...JSON.parse(row.metadata), ...patch.metadata }),
      ended_at: patch.endedAt === undefined ? row.ended_at : patch.endedAt,
    };
    context
      .statement('UPDATE turns SET status = @status, boundary = @boundary, metadata = @metadata, ended_at = @ended_at WHERE id = @id')
      .run({ ...next, metadata: packJson(next.metadata) });
    return toTurn(next);
  });
}

export function getTurn(context: SqliteContext, id: string): Turn {
  return toTurn(requireTurn(context, id));
}

export function listTurns(context: SqliteContext, sessionId: string, status?: Turn['status']): Turn[] {
  requireSession(context, sessionId);
  const rows = (
    status === undefined
      ? context.statement('SELECT * FROM turns WHERE session_id = ? ORDER BY started_at, id').all(sessionId)
      : context.statement('SELECT * FROM turns WHERE session_id = ? AND status = ? ORDER BY started_at, id').all(sessionId, status)
  ) as StoredTurnRow[];
  return rows.map(toTurn);
}
