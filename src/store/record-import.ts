import {
  ConflictError,
  InvalidArgumentError,
  type Checkpoint,
  type Effect,
  type Entry,
  type Message,
  type PartContent,
  type Session,
  type Turn,
} from '../model/index.js';
import { encodeParts } from './new-rows.js';
import type { CheckpointRow, EffectRow, EntryRow, SessionRow, TurnRow } from './sqlite/rows.js';

/** A message as an import carries it: every stored field, its parts' contents in order. */
export interface ImportedMessage extends Message {
  parts: PartContent[];
}

/**
 * Records copied from another store, ids, sequence numbers and times kept (see `Store.importRecords`).
 * Every message's parent and every session's parent must be in the import or already in the store.
 */
export interface RecordsImport {
  sessions: Session[];
  messages: ImportedMessage[];
  entries: Entry[];
  turns: Turn[];
  checkpoints: Checkpoint[];
  effects: Effect[];
  /** Blob pins to add (kept with the pins an owner has), e.g. contents named only by entries. */
  pins: Array<{ owner: string; hashes: string[] }>;
}

export const IMPORT_RECORD_KINDS = ['sessions', 'messages', 'entries', 'turns', 'checkpoints', 'effects'] as const;
export type ImportRecordKind = (typeof IMPORT_RECORD_KINDS)[number];
export type ImportRecordCounts = Record<ImportRecordKind, number>;

export interface RecordsImportResult {
  /** Records written by this import (all zero for an import that had already been done). */
  inserted: ImportRecordCounts;
  /** Records the store held already, identical to the imported ones. */
  existing: ImportRecordCounts;
}

/** The records of the store that carry the ids (or the `(session, seq)` places) of an import. */
export interface ExistingRecords {
  sessions: Map<string, Session>;
  messages: Map<string, ImportedMessage>;
  entries: Map<string, Entry>;
  turns: Map<string, Turn>;
  checkpoints: Map<string, Checkpoint>;
  effects: Map<string, Effect>;
  /** `session seq` → the id of the entry, or checkpoint, at that place of its session. */
  entryPlaces: Map<string, string>;
  checkpointPlaces: Map<string, string>;
}

/** What an import writes, in an order foreign keys accept (parents first), once no record conflicts. */
export interface ImportPlan {
  records: RecordsImport;
  result: RecordsImportResult;
}

export function zeroCounts(): ImportRecordCounts {
  return { sessions: 0, messages: 0, entries: 0, turns: 0, checkpoints: 0, effects: 0 };
}

/** JSON with object keys sorted, so two records compare by content whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * Compares every imported record with the store's record of the same id, and refuses the whole
 * import with `IMPORT_CONFLICT` when one differs (or when another record holds its place in a
 * session): nothing is written then. Returns the records still to write, parents first.
 */
export function planImport(records: RecordsImport, existing: ExistingRecords): ImportPlan {
  const result: RecordsImportResult = { inserted: zeroCounts(), existing: zeroCounts() };
  const fresh = (kind: ImportRecordKind, items: ReadonlyArray<{ id: string }>, stored: Map<string, unknown>, comparable: (item: never) => unknown) =>
    items.filter((item) => {
      const found = stored.get(item.id);
      if (found === undefined) {
        result.inserted[kind]++;
        return true;
      }
      if (canonicalJson(comparable(found as never)) !== canonicalJson(comparable(item as never))) throw importConflict(kind, item.id, 'has different content');
      result.existing[kind]++;
      return false;
    });
  const same = (item: unknown) => item;
  const plan: RecordsImport = {
    sessions: parentsFirst(fresh('sessions', records.sessions, existing.sessions, same) as Session[]),
    messages: (fresh('messages', records.messages, existing.messages, same) as ImportedMessage[]).sort((a, b) => a.depth - b.depth),
    entries: fresh('entries', records.entries, existing.entries, same) as Entry[],
    turns: fresh('turns', records.turns, existing.turns, same) as Turn[],
    checkpoints: fresh('checkpoints', records.checkpoints, existing.checkpoints, same) as Checkpoint[],
    effects: fresh('effects', records.effects, existing.effects, same) as Effect[],
    pins: records.pins,
  };
  for (const entry of plan.entries) {
    const holder = existing.entryPlaces.get(`${entry.sessionId} ${entry.seq}`);
    if (holder !== undefined && holder !== entry.id) throw importConflict('entries', entry.id, `takes place ${entry.seq} of its session, held by ${holder}`);
  }
  for (const checkpoint of plan.checkpoints) {
    const holder = existing.checkpointPlaces.get(`${checkpoint.sessionId} ${checkpoint.seq}`);
    if (holder !== undefined && holder !== checkpoint.id) {
      throw importConflict('checkpoints', checkpoint.id, `takes place ${checkpoint.seq} of its session, held by ${holder}`);
    }
  }
  return { records: plan, result };
}

/** Sessions ordered so a fork's parent comes before it (parents outside the list are the store's). */
function parentsFirst(sessions: Session[]): Session[] {
  const byId = new Map(sessions.map((session) => [session.id, session]));
  const ordered: Session[] = [];
  const placed = new Set<string>();
  const place = (session: Session, seen: Set<string>) => {
    if (placed.has(session.id) || seen.has(session.id)) return;
    seen.add(session.id);
    const parent = session.parentSessionId === null ? undefined : byId.get(session.parentSessionId);
    if (parent) place(parent, seen);
    placed.add(session.id);
    ordered.push(session);
  };
  for (const session of sessions) place(session, new Set());
  return ordered;
}

export function importConflict(kind: ImportRecordKind, id: string, what: string): ConflictError {
  return new ConflictError({
    code: 'IMPORT_CONFLICT',
    message: `Cannot import: the store already has a record ${id} (${kind}) that ${what}. Nothing was imported; the store and the import describe different histories under the same id.`,
    details: { kind, id },
  });
}

/** Refuses an import whose records are not shaped as the store keeps them (before any read). */
export function checkImport(records: RecordsImport): void {
  for (const kind of IMPORT_RECORD_KINDS) {
    if (!Array.isArray(records[kind]))
      throw new InvalidArgumentError({ parameter: `records.${kind}`, value: records[kind], reason: 'a list of records is needed.' });
    for (const [index, item] of (records[kind] as Array<{ id?: unknown }>).entries()) {
      if (typeof item?.id !== 'string' || item.id.length === 0) {
        throw new InvalidArgumentError({ parameter: `records.${kind}[${index}].id`, value: item?.id, reason: 'every record keeps its id.' });
      }
    }
  }
  for (const message of records.messages) encodeParts(message.parts);
}

export function sessionRow(session: Session): SessionRow {
  return {
    id: session.id,
    kind: session.kind,
    tree_id: session.treeId,
    parent_session_id: session.parentSessionId,
    root_session_id: session.rootSessionId,
    forked_from_message_id: session.forkedFromMessageId,
    head_message_id: session.headMessageId,
    branch_generation: session.branchGeneration,
    title: session.title,
    workdir: session.workdir,
    git_branch: session.gitBranch,
    metadata: JSON.stringify(session.metadata),
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  };
}

export function entryRow(entry: Entry): EntryRow {
  return { id: entry.id, session_id: entry.sessionId, seq: entry.seq, type: entry.type, created_at: entry.createdAt, data: JSON.stringify(entry.data) };
}

export function turnRow(turn: Turn): TurnRow {
  return {
    id: turn.id,
    session_id: turn.sessionId,
    user_message_id: turn.userMessageId,
    status: turn.status,
    branch_generation: turn.branchGeneration,
    boundary: turn.boundary === null ? null : JSON.stringify(turn.boundary),
    metadata: JSON.stringify(turn.metadata),
    started_at: turn.startedAt,
    ended_at: turn.endedAt,
  };
}

export function checkpointRowOf(checkpoint: Checkpoint): CheckpointRow {
  return {
    id: checkpoint.id,
    session_id: checkpoint.sessionId,
    seq: checkpoint.seq,
    turn_id: checkpoint.turnId,
    anchor_message_id: checkpoint.anchorMessageId,
    op: checkpoint.op,
    path: checkpoint.path,
    to_path: checkpoint.toPath,
    before_hash: checkpoint.beforeHash,
    after_hash: checkpoint.afterHash,
    before_mode: checkpoint.beforeMode,
    after_mode: checkpoint.afterMode,
    source: checkpoint.source,
    tool_name: checkpoint.toolName,
    tool_call_id: checkpoint.toolCallId,
    status: checkpoint.status,
    skip_reason: checkpoint.skipReason,
    created_at: checkpoint.createdAt,
    patch: checkpoint.patch,
  };
}

export function effectRow(effect: Effect): EffectRow {
  return {
    id: effect.id,
    session_id: effect.sessionId,
    turn_id: effect.turnId,
    tool_name: effect.toolName,
    tool_call_id: effect.toolCallId,
    idempotency_key: effect.idempotencyKey,
    status: effect.status,
    request: JSON.stringify(effect.request),
    result: JSON.stringify(effect.result),
    created_at: effect.createdAt,
  };
}

/** The session ids an import's per-session records name (for reading the places they take). */
export function importSessionIds(records: RecordsImport): string[] {
  return [...new Set([...records.entries, ...records.checkpoints].map((record) => record.sessionId))];
}
