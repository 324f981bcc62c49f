import { newId, type CommandFact, type Effect } from '../../model/index.js';
import type { NewEffect } from '../store.js';
import { toCommandFact, toEffect, type CommandFactRow, type EffectRow } from './rows.js';
import { checkpointHashHex } from './checkpoint-hashes.js';
import { addPinRoots } from './pin-sets.js';
import { requireSession } from './sessions.js';
import { writeIntentRoots } from './intent-roots.js';
import type { SqliteContext } from './sqlite-context.js';

/** Effects and command facts, the small append-mostly ledgers, and GC's roots (pin sets: `pin-sets.ts`). */

export function appendEffect(context: SqliteContext, effect: NewEffect): Effect {
  const now = Date.now();
  return context.write('record an effect', () => {
    requireSession(context, effect.sessionId);
    const row: EffectRow = {
      id: newId('effect', now),
      session_id: effect.sessionId,
      turn_id: effect.turnId ?? null,
      tool_name: effect.toolName,
      tool_call_id: effect.toolCallId ?? null,
      idempotency_key: effect.idempotencyKey,
      status: effect.status,
      request: JSON.stringify(effect.request ?? null),
      result: JSON.stringify(effect.result ?? null),
      created_at: now,
    };
    context
      .statement(
        `INSERT INTO effects (id, session_id, turn_id, tool_name, tool_call_id, idempotency_key, status, request, result, created_at)
         VALUES (@id, @session_id, @turn_id, @tool_name, @tool_call_id, @idempotency_key, @status, @request, @result, @created_at)`,
      )
      .run(row);
    return toEffect(row);
  });
}

export function listEffects(context: SqliteContext, options: { sessionId?: string; idempotencyKey?: string }): Effect[] {
  const where: string[] = [];
  if (options.sessionId !== undefined) where.push('session_id = @sessionId');
  if (options.idempotencyKey !== undefined) where.push('idempotency_key = @idempotencyKey');
  const sql = `SELECT * FROM effects ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`;
  return (context.statement(sql).all(options) as EffectRow[]).map(toEffect);
}

export function getCommandFact(context: SqliteContext, commandId: string): CommandFact | null {
  const row = context.statement('SELECT * FROM command_facts WHERE command_id = ?').get(commandId) as CommandFactRow | undefined;
  return row ? toCommandFact(row) : null;
}

export function putCommandFact(context: SqliteContext, fact: Omit<CommandFact, 'createdAt'>): CommandFact {
  const now = Date.now();
  return context.write('record a command', () => {
    const existing = getCommandFact(context, fact.commandId);
    if (existing) return existing;
    const row: CommandFactRow = {
      command_id: fact.commandId,
      session_id: fact.sessionId,
      kind: fact.kind,
      result: JSON.stringify(fact.result),
      created_at: now,
    };
    context
      .statement('INSERT INTO command_facts (command_id, session_id, kind, result, created_at) VALUES (@command_id, @session_id, @kind, @result, @created_at)')
      .run(row);
    return toCommandFact(row);
  });
}

/** Adds every hash a record refers to: checkpoint before/after, journal items, parts, pins (writes in flight: `writeIntentRoots`). */
export function addRecordRoots(context: SqliteContext, roots: Set<string>): Set<string> {
  for (const row of context.statement(blobRootsQuery).all() as Array<{ hash: string }>) roots.add(row.hash);
  addPinRoots(context, roots);
  return roots;
}

const blobRootsQuery = `SELECT ${checkpointHashHex('before_hash')} AS hash FROM checkpoints WHERE before_hash IS NOT NULL
  UNION SELECT ${checkpointHashHex('after_hash')} FROM checkpoints WHERE after_hash IS NOT NULL
  UNION SELECT hash FROM message_blobs
  UNION SELECT json_extract(item.value, '$.expectedHash') FROM journals, json_each(journals.items) AS item
    WHERE json_extract(item.value, '$.expectedHash') IS NOT NULL
  UNION SELECT json_extract(item.value, '$.targetHash') FROM journals, json_each(journals.items) AS item
    WHERE json_extract(item.value, '$.targetHash') IS NOT NULL`;

/** Every hash a record or a write in flight refers to: the GC roots. */
export function blobRoots(context: SqliteContext): Set<string> {
  return context.read('collect blob roots', () => {
    return addRecordRoots(context, writeIntentRoots(context));
  });
}
