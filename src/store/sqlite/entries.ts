import { newId, type Entry, type JsonObject } from '../../model/index.js';
import type { NewEntry } from '../store.js';
import { toEntry, type EntryRow } from './rows.js';
import type { SqliteContext } from './sqlite-context.js';

/** Insert one entry with the session's next seq. Call inside a write transaction. */
export function insertEntry(context: SqliteContext, sessionId: string, entry: NewEntry, now: number): Entry {
  const { next } = context.statement('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM entries WHERE session_id = ?').get(sessionId) as { next: number };
  const row: EntryRow = { id: newId('entry', now), session_id: sessionId, seq: next, type: entry.type, created_at: now, data: JSON.stringify(entry.data) };
  context.statement('INSERT INTO entries (id, session_id, seq, type, created_at, data) VALUES (@id, @session_id, @seq, @type, @created_at, @data)').run(row);
  return toEntry(row);
}

export function listEntries(context: SqliteContext, sessionId: string, options: { type?: string; afterSeq?: number; last?: number }): Entry[] {
  const where = ['session_id = @sessionId', 'seq > @afterSeq'];
  if (options.type !== undefined) where.push('type = @type');
  const params = { sessionId, afterSeq: options.afterSeq ?? 0, type: options.type, last: options.last ?? -1 };
  const sql =
    options.last === undefined
      ? `SELECT * FROM entries WHERE ${where.join(' AND ')} ORDER BY seq`
      : `SELECT * FROM (SELECT * FROM entries WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT @last) ORDER BY seq`;
  const rows = context.statement(sql).all(params) as EntryRow[];
  return rows.map(toEntry);
}

export function jsonOf(value: JsonObject | undefined): string {
  return JSON.stringify(value ?? {});
}
