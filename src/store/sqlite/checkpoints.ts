import { checkpointRow } from '../new-rows.js';
import { NotFoundError, type Checkpoint } from '../../model/index.js';
import type { ListCheckpointsOptions, NewCheckpoint } from '../store.js';
import { fromStoredCheckpointRow, toStoredCheckpointRow, type StoredCheckpointRow } from './checkpoint-hashes.js';
import { toCheckpoint } from './rows.js';
import { requireSession } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

export function addCheckpoints(context: SqliteContext, checkpoints: NewCheckpoint[]): Checkpoint[] {
  const now = Date.now();
  return context.write('record checkpoints', () => addCheckpointRows(context, checkpoints, now));
}

/** Inserts checkpoint rows inside the caller's write transaction. */
export function addCheckpointRows(context: SqliteContext, checkpoints: NewCheckpoint[], now: number): Checkpoint[] {
  const nextSeq = new Map<string, number>();
  const insert = context.statement(
    `INSERT INTO checkpoints (id, session_id, seq, turn_id, anchor_message_id, op, path, to_path, before_hash, after_hash,
      before_mode, after_mode, source, tool_name, tool_call_id, status, skip_reason, created_at, patch)
     VALUES (@id, @session_id, @seq, @turn_id, @anchor_message_id, @op, @path, @to_path, @before_hash, @after_hash,
      @before_mode, @after_mode, @source, @tool_name, @tool_call_id, @status, @skip_reason, @created_at, @patch)`,
  );
  return checkpoints.map((checkpoint) => {
    let seq = nextSeq.get(checkpoint.sessionId);
    if (seq === undefined) {
      requireSession(context, checkpoint.sessionId);
      seq = (context.statement('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM checkpoints WHERE session_id = ?').get(checkpoint.sessionId) as { next: number })
        .next;
    }
    nextSeq.set(checkpoint.sessionId, seq + 1);
    const row = checkpointRow(checkpoint, seq, now);
    insert.run(toStoredCheckpointRow(row));
    return toCheckpoint(row);
  });
}

export function getCheckpoint(context: SqliteContext, id: string): Checkpoint {
  const row = context.statement('SELECT * FROM checkpoints WHERE id = ?').get(id) as StoredCheckpointRow | undefined;
  if (!row) throw new NotFoundError({ entity: 'checkpoint', id });
  return toCheckpoint(fromStoredCheckpointRow(row));
}

export function listCheckpoints(context: SqliteContext, sessionId: string, options: ListCheckpointsOptions): Checkpoint[] {
  requireSession(context, sessionId);
  const where = ['session_id = @sessionId', 'seq > @afterSeq'];
  if (options.turnId !== undefined) where.push('turn_id = @turnId');
  if (options.anchorMessageId !== undefined) where.push('anchor_message_id = @anchorMessageId');
  const params = { ...options, sessionId, afterSeq: options.afterSeq ?? 0, last: options.last ?? -1 };
  const sql =
    options.last === undefined
      ? `SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY seq`
      : `SELECT * FROM (SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT @last) ORDER BY seq`;
  return (context.statement(sql).all(params) as StoredCheckpointRow[]).map((row) => toCheckpoint(fromStoredCheckpointRow(row)));
}
