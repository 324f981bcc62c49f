import {
  checkImport,
  checkpointRowOf,
  effectRow,
  entryRow,
  importSessionIds,
  planImport,
  sessionRow,
  turnRow,
  type ExistingRecords,
  type RecordsImport,
  type RecordsImportResult,
} from '../record-import.js';
import { encodeParts } from '../new-rows.js';
import {
  toCheckpoint,
  toEffect,
  toEntry,
  toMessageWithParts,
  toSession,
  toTurn,
  type CheckpointRow,
  type EffectRow,
  type EntryRow,
  type MessageRow,
  type SessionRow,
  type TurnRow,
} from '../sqlite/rows.js';
import { shareRootsLock, type PgContext, type Sql } from './pg-context.js';
import { MESSAGE_COLUMNS } from './pg-sessions.js';

/**
 * Writes records copied from another store in one transaction, each compared first with the
 * store's record of the same id: a conflict writes nothing, an import already done writes nothing.
 * The sessions named are locked first, so two imports of one family serialize.
 */
export async function importRecords(context: PgContext, records: RecordsImport, options: { checkOnly?: boolean } = {}): Promise<RecordsImportResult> {
  checkImport(records);
  const run = async (sql: Sql) => {
    if (!options.checkOnly) {
      await shareRootsLock(sql, context.schema);
      // One import of a family at a time: the second then sees the first's rows and compares them.
      for (const id of [...new Set(records.sessions.map((session) => session.id))].sort()) {
        await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`waypoint:${context.schema}:import:${id}`]);
      }
    }
    const plan = planImport(records, await readExisting(sql, records));
    if (options.checkOnly) return plan.result;
    const { sessions, messages, entries, turns, checkpoints, effects, pins } = plan.records;
    for (const message of messages) {
      const encoded = encodeParts(message.parts);
      await insertRow(sql, 'messages', {
        id: message.id,
        tree_id: message.treeId,
        parent_id: message.parentId,
        session_id: message.sessionId,
        role: message.role,
        kind: message.kind,
        status: message.status,
        turn_id: message.turnId,
        depth: message.depth,
        created_at: message.createdAt,
        metadata: JSON.stringify(message.metadata),
        part_meta: encoded.meta,
        parts: encoded.parts,
      });
      if (encoded.blobHashes.length > 0) {
        await sql.query('INSERT INTO message_blobs (message_id, hash) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [message.id, encoded.blobHashes]);
      }
    }
    for (const session of sessions) await insertRow(sql, 'sessions', { ...sessionRow(session) });
    for (const entry of entries) await insertRow(sql, 'entries', { ...entryRow(entry) });
    for (const turn of turns) await insertRow(sql, 'turns', { ...turnRow(turn) });
    for (const checkpoint of checkpoints) await insertRow(sql, 'checkpoints', { ...checkpointRowOf(checkpoint) });
    for (const effect of effects) await insertRow(sql, 'effects', { ...effectRow(effect) });
    for (const pin of pins) {
      if (pin.hashes.length === 0) continue;
      await sql.query('INSERT INTO blob_pins (owner, hash) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [pin.owner, [...new Set(pin.hashes)]]);
    }
    return plan.result;
  };
  return options.checkOnly ? context.read('check an import', run) : context.write('import records', run);
}

async function insertRow(sql: Sql, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await sql.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, index) => `$${index + 1}`).join(', ')})`, Object.values(row));
}

async function readExisting(sql: Sql, records: RecordsImport): Promise<ExistingRecords> {
  const byIds = async <Row>(table: string, items: ReadonlyArray<{ id: string }>, columns = '*'): Promise<Row[]> =>
    items.length === 0 ? [] : ((await sql.query(`SELECT ${columns} FROM ${table} WHERE id = ANY($1::text[])`, [items.map((item) => item.id)])).rows as Row[]);
  const sessionIds = importSessionIds(records);
  const places = async (table: string) =>
    new Map(
      (await sql.query<EntryRow>(`SELECT id, session_id, seq FROM ${table} WHERE session_id = ANY($1::text[])`, [sessionIds])).rows.map((row) => [
        `${row.session_id} ${row.seq}`,
        row.id,
      ]),
    );
  const messages = (await byIds<MessageRow>('messages', records.messages, `${MESSAGE_COLUMNS}, parts`)).map((row) => {
    const { parts, ...message } = toMessageWithParts({ ...row, seq: 0, parent_seq: null });
    return { ...message, parts: parts.map((part) => part.content!) };
  });
  return {
    sessions: new Map((await byIds<SessionRow>('sessions', records.sessions)).map((row) => [row.id, toSession(row)])),
    messages: new Map(messages.map((message) => [message.id, message])),
    entries: new Map((await byIds<EntryRow>('entries', records.entries)).map((row) => [row.id, toEntry(row)])),
    turns: new Map((await byIds<TurnRow>('turns', records.turns)).map((row) => [row.id, toTurn(row)])),
    checkpoints: new Map((await byIds<CheckpointRow>('checkpoints', records.checkpoints)).map((row) => [row.id, toCheckpoint(row)])),
    effects: new Map((await byIds<EffectRow>('effects', records.effects)).map((row) => [row.id, toEffect(row)])),
    entryPlaces: await places('entries'),
    checkpointPlaces: await places('checkpoints'),
  };
}
