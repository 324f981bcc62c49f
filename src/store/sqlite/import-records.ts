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
  type ImportedMessage,
  type RecordsImport,
  type RecordsImportResult,
} from '../record-import.js';
import { encodeParts } from '../new-rows.js';
import { addPinsIn } from './pin-sets.js';
import { fromStoredCheckpointRow, toStoredCheckpointRow, type StoredCheckpointRow } from './checkpoint-hashes.js';
import { packJson } from './packed-json.js';
import {
  toCheckpoint,
  toEffect,
  toEntry,
  toMessageWithParts,
  toSession,
  toTurn,
  type EffectRow,
  type EntryRow,
  type MessageRow,
  type SessionRow,
  type StoredTurnRow,
} from './rows.js';
import { requireMessageRow } from './sessions.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Writes records copied from another store in one immediate transaction: every record is compared
 * with the store's record of the same id first, so a conflict writes nothing and an import already
 * done writes nothing either. With `checkOnly`, reports what it would write and writes nothing.
 */
export function importRecords(context: SqliteContext, records: RecordsImport, options: { checkOnly?: boolean } = {}): RecordsImportResult {
  checkImport(records);
  const run = () => {
    const plan = planImport(records, readExisting(context, records));
    if (options.checkOnly) return plan.result;
    const { sessions, messages, entries, turns, checkpoints, effects, pins } = plan.records;
    for (const message of messages) insertMessage(context, message);
    const insertSession = context.statement(
      `INSERT INTO sessions (id, kind, tree_id, parent_session_id, root_session_id, forked_from_message_id, head_message_id, branch_generation, title, workdir, git_branch, metadata, created_at, updated_at)
       VALUES (@id, @kind, @tree_id, @parent_session_id, @root_session_id, @forked_from_message_id, @head_message_id, @branch_generation, @title, @workdir, @git_branch, @metadata, @created_at, @updated_at)`,
    );
    for (const session of sessions) insertSession.run(sessionRow(session));
    const insertEntry = context.statement(
      'INSERT INTO entries (id, session_id, seq, type, created_at, data) VALUES (@id, @session_id, @seq, @type, @created_at, @data)',
    );
    for (const entry of entries) insertEntry.run(entryRow(entry));
    const insertTurn = context.statement(
      `INSERT INTO turns (id, session_id, user_message_id, status, branch_generation, boundary, metadata, started_at, ended_at)
       VALUES (@id, @session_id, @user_message_id, @status, @branch_generation, @boundary, @metadata, @started_at, @ended_at)`,
    );
    for (const turn of turns) {
      const row = turnRow(turn);
      insertTurn.run({ ...row, metadata: packJson(row.metadata) });
    }
    const insertCheckpoint = context.statement(
      `INSERT INTO checkpoints (id, session_id, seq, turn_id, anchor_message_id, op, path, to_path, before_hash, after_hash, before_mode, after_mode, source, tool_name, tool_call_id, status, skip_reason, created_at, patch)
       VALUES (@id, @session_id, @seq, @turn_id, @anchor_message_id, @op, @path, @to_path, @before_hash, @after_hash, @before_mode, @after_mode, @source, @tool_name, @tool_call_id, @status, @skip_reason, @created_at, @patch)`,
    );
    for (const checkpoint of checkpoints) insertCheckpoint.run(toStoredCheckpointRow(checkpointRowOf(checkpoint)));
    const insertEffect = context.statement(
      `INSERT INTO effects (id, session_id, turn_id, tool_name, tool_call_id, idempotency_key, status, request, result, created_at)
       VALUES (@id, @session_id, @turn_id, @tool_name, @tool_call_id, @idempotency_key, @status, @request, @result, @created_at)`,
    );
    for (const effect of effects) insertEffect.run(effectRow(effect));
    for (const pin of pins) addPinsIn(context, pin.owner, pin.hashes);
    return plan.result;
  };
  return options.checkOnly ? context.read('check an import', run) : context.write('import records', run);
}

function insertMessage(context: SqliteContext, message: ImportedMessage): void {
  const parentSeq = message.parentId === null ? null : requireMessageRow(context, message.parentId).seq;
  const encoded = encodeParts(message.parts);
  const { lastInsertRowid } = context
    .statement(
      `INSERT INTO messages (id, tree_id, parent_seq, parent_id, session_id, role, kind, status, turn_id, depth, created_at, metadata, part_meta)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      message.id,
      message.treeId,
      parentSeq,
      message.parentId,
      message.sessionId,
      message.role,
      message.kind,
      message.status,
      message.turnId,
      message.depth,
      message.createdAt,
      JSON.stringify(message.metadata),
      encoded.meta,
    );
  const seq = Number(lastInsertRowid);
  context.statement('INSERT INTO message_parts (seq, parts) VALUES (?, ?)').run(seq, encoded.parts);
  const insertRef = context.statement('INSERT OR IGNORE INTO message_blobs (message_seq, hash) VALUES (?, ?)');
  for (const hash of encoded.blobHashes) insertRef.run(seq, hash);
}

function readExisting(context: SqliteContext, records: RecordsImport): ExistingRecords {
  const byIds = <Row>(table: string, ids: string[]): Row[] =>
    context.statement(`SELECT * FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Row[];
  const ids = <T extends { id: string }>(items: T[]) => items.map((item) => item.id);
  const sessionIds = JSON.stringify(importSessionIds(records));
  const messages = (
    context
      .statement('SELECT m.*, mp.parts FROM messages m JOIN message_parts mp ON mp.seq = m.seq WHERE m.id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ids(records.messages))) as MessageRow[]
  ).map((row) => {
    const { parts, ...message } = toMessageWithParts(row);
    return { ...message, parts: parts.map((part) => part.content!) };
  });
  const places = (table: string) =>
    new Map(
      (context.statement(`SELECT id, session_id, seq FROM ${table} WHERE session_id IN (SELECT value FROM json_each(?))`).all(sessionIds) as EntryRow[]).map(
        (row) => [`${row.session_id} ${row.seq}`, row.id],
      ),
    );
  return {
    sessions: new Map(byIds<SessionRow>('sessions', ids(records.sessions)).map((row) => [row.id, toSession(row)])),
    messages: new Map(messages.map((message) => [message.id, message])),
    entries: new Map(byIds<EntryRow>('entries', ids(records.entries)).map((row) => [row.id, toEntry(row)])),
    turns: new Map(byIds<StoredTurnRow>('turns', ids(records.turns)).map((row) => [row.id, toTurn(row)])),
    checkpoints: new Map(
      byIds<StoredCheckpointRow>('checkpoints', ids(records.checkpoints)).map((row) => [row.id, toCheckpoint(fromStoredCheckpointRow(row))]),
    ),
    effects: new Map(byIds<EffectRow>('effects', ids(records.effects)).map((row) => [row.id, toEffect(row)])),
    entryPlaces: places('entries'),
    checkpointPlaces: places('checkpoints'),
  };
}
