import { accessSync, constants, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { CommandFact, JournalState, JsonObject, MessageStatus, PartContent, Turn } from '../../model/index.js';
import type {
  AppendMessageInput,
  BlobStorage,
  CreateSessionInput,
  CreateTurnInput,
  ForkSessionInput,
  HistoryOptions,
  JournalCommitWrites,
  JournalWriteOptions,
  WorkspaceLockHolder,
  WorkspaceLockRequest,
  ListCheckpointsOptions,
  ListSessionsOptions,
  MoveHeadInput,
  NewCheckpoint,
  NewEffect,
  NewEntry,
  NewJournal,
  Store,
  StoreCapabilities,
  StoreFootprint,
  UpdateTurnInput,
} from '../store.js';
import { compactDatabase } from './database-compaction.js';
import {
  BLOB_SCHEMA_V1_SQL,
  BLOB_SCHEMA_V5_MIGRATION_SQL,
  BLOB_SCHEMA_V6_MIGRATION_SQL,
  BLOB_SCHEMA_V8_MIGRATION_SQL,
  PackBlobStorage,
} from './blobs/index.js';
import { insertEntry, listEntries } from './entries.js';
import { deleteSession, forkSession } from './fork.js';
import * as messages from './messages.js';
import { migrations } from './migrations.js';
import { openDatabase, prepareStoreDirectory } from './open-database.js';
import { readPath } from './read-path.js';
import * as records from './records.js';
import { acquireWorkspaceLocks, releaseWorkspaceLocks } from './workspace-locks.js';
import { toMessage, toSession } from './rows.js';
import * as sessions from './sessions.js';
import { SqliteContext } from './sqlite-context.js';
import { guardBlobStorage } from './store-failure.js';
import { sqliteFootprint } from './sqlite-footprint.js';
import type { NewWriteIntent } from '../write-intent.js';
import * as intents from './write-intents.js';
import { importRecords } from './import-records.js';
import type { RecordsImport } from '../record-import.js';

/** Why the current process cannot write `path` (null when it can, or when it does not exist yet). */
function unwritableReason(path: string): string | null {
  if (!existsSync(path)) return null;
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      return code === 'EROFS' ? 'it is on a read-only file system' : 'this user has no write permission on the file or its directory';
    }
    return null;
  }
}

export interface SqliteStoreOptions {
  /** The database file; created with its parent directory when absent. */
  path: string;
  /** Open without writing anything; every write raises `STORE_READ_ONLY`. */
  readOnly?: boolean;
  /** How long a write waits for another process's lock before `STORE_BUSY` (default 5000 ms). */
  busyTimeoutMs?: number;
}

/** The schema version this code writes; a store with a newer one is refused. */
export const SQLITE_SCHEMA_VERSION = migrations('', '', '', '').at(-1)!.version;

/**
 * The embedded default backend: one SQLite file (WAL, so several processes can share it) plus a
 * directory of blob pack files beside it (`<file>.blobs/`).
 *
 * @example
 * const store = await SqliteStore.open({ path: '/tmp/waypoint.db' });
 * const session = await store.createSession({ title: 'Refactor' });
 */
export class SqliteStore implements Store {
  readonly capabilities: StoreCapabilities = { backend: 'sqlite', multiProcess: true, blobFiles: true, blobStaging: true };
  readonly blobs: PackBlobStorage;

  private constructor(
    private readonly context: SqliteContext,
    private readonly blobDir: string,
  ) {
    this.blobs = guardBlobStorage(new PackBlobStorage(context.db, blobDir, { readOnly: context.readOnly }), context.path);
  }

  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    const path = resolve(options.path);
    // A store file this process may not write is opened read-only: reads work, writes raise
    // STORE_READ_ONLY naming the reason, instead of failing deep inside SQLite.
    const notWritable = options.readOnly ? null : unwritableReason(path);
    const readOnly = options.readOnly === true || notWritable !== null;
    if (!readOnly) prepareStoreDirectory(path);
    const db = openDatabase({
      path,
      readOnly,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      migrations: migrations(BLOB_SCHEMA_V1_SQL, BLOB_SCHEMA_V5_MIGRATION_SQL, BLOB_SCHEMA_V6_MIGRATION_SQL, BLOB_SCHEMA_V8_MIGRATION_SQL),
    });
    const context = new SqliteContext(db, path, readOnly, notWritable ?? (readOnly ? 'it was opened read-only' : null));
    return new SqliteStore(context, join(dirname(path), `${basename(path)}.blobs`));
  }

  get location(): string {
    return this.context.path;
  }

  async footprint(): Promise<StoreFootprint> {
    return sqliteFootprint(this.context.path, this.blobDir, this.context.db);
  }

  get readOnly(): boolean {
    return this.context.readOnly;
  }

  async compactDatabase(): Promise<{ freedBytes: number }> {
    return compactDatabase(this.context);
  }

  async close(): Promise<void> {
    if (this.context.closed) return;
    this.context.closed = true;
    const closable = this.blobs as BlobStorage & { close?: () => void };
    try {
      closable.close?.();
    } catch {
      // Sealing this process's packs failed (a full disk): they stay `open` under a pid that will
      // be dead, which compaction treats like sealed ones. The database is closed regardless.
    } finally {
      this.context.db.close();
    }
  }

  async createSession(input: CreateSessionInput = {}) {
    return sessions.createSession(this.context, input);
  }

  async getSession(id: string) {
    this.context.assertOpen();
    return toSession(sessions.requireSession(this.context, id));
  }

  async findSession(id: string) {
    this.context.assertOpen();
    const row = sessions.findSessionRow(this.context, id);
    return row ? toSession(row) : null;
  }

  async listSessions(options: ListSessionsOptions = {}) {
    this.context.assertOpen();
    return sessions.listSessions(this.context, options);
  }

  async setTitle(sessionId: string, title: string) {
    return sessions.setTitle(this.context, sessionId, title);
  }

  async patchSessionMetadata(sessionId: string, patch: JsonObject) {
    return sessions.patchSessionMetadata(this.context, sessionId, patch);
  }

  async forkSession(input: ForkSessionInput) {
    return forkSession(this.context, input);
  }

  async deleteSession(id: string) {
    deleteSession(this.context, id);
  }

  async appendMessage(input: AppendMessageInput) {
    return messages.appendMessage(this.context, input);
  }

  async getMessage(id: string, options: { parts?: 'full' | 'none' } = {}) {
    return messages.getMessage(this.context, id, options.parts ?? 'full');
  }

  async getMessages(ids: readonly string[], options: { parts?: 'full' | 'none' } = {}) {
    return messages.getMessages(this.context, ids, options.parts ?? 'full');
  }

  async findMessage(id: string) {
    this.context.assertOpen();
    const row = this.context.statement('SELECT * FROM messages WHERE id = ?').get(id);
    return row ? toMessage(row as Parameters<typeof toMessage>[0]) : null;
  }

  async history(sessionId: string, options: HistoryOptions = {}) {
    this.context.assertOpen();
    const session = sessions.requireSession(this.context, sessionId);
    return readPath(this.context, session.head_message_id, options);
  }

  async pathTo(messageId: string, options: HistoryOptions = {}) {
    this.context.assertOpen();
    return readPath(this.context, messageId, options);
  }

  async children(messageId: string) {
    this.context.assertOpen();
    return messages.children(this.context, messageId);
  }

  async listTreeMessages(treeId: string) {
    this.context.assertOpen();
    return messages.listTreeMessages(this.context, treeId);
  }

  async replaceStreamingParts(messageId: string, parts: PartContent[]) {
    return messages.replaceStreamingParts(this.context, messageId, parts);
  }

  async finishMessage(messageId: string, status: Exclude<MessageStatus, 'streaming'>, parts?: PartContent[]) {
    return messages.finishMessage(this.context, messageId, status, parts);
  }

  async moveHead(input: MoveHeadInput) {
    return sessions.moveHead(this.context, input);
  }

  async appendEntry(sessionId: string, entry: NewEntry) {
    const now = Date.now();
    return this.context.write('append an entry', () => {
      sessions.requireSession(this.context, sessionId);
      return insertEntry(this.context, sessionId, entry, now);
    });
  }

  async listEntries(sessionId: string, options: { type?: string; afterSeq?: number; last?: number } = {}) {
    this.context.assertOpen();
    sessions.requireSession(this.context, sessionId);
    return listEntries(this.context, sessionId, options);
  }

  async createTurn(input: CreateTurnInput) {
    return records.createTurn(this.context, input);
  }

  async updateTurn(id: string, patch: UpdateTurnInput) {
    return records.updateTurn(this.context, id, patch);
  }

  async getTurn(id: string) {
    this.context.assertOpen();
    return records.getTurn(this.context, id);
  }

  async listTurns(sessionId: string, options: { status?: Turn['status'] } = {}) {
    this.context.assertOpen();
    return records.listTurns(this.context, sessionId, options.status);
  }

  async addCheckpoints(checkpoints: NewCheckpoint[]) {
    return records.addCheckpoints(this.context, checkpoints);
  }

  async getCheckpoint(id: string) {
    this.context.assertOpen();
    return records.getCheckpoint(this.context, id);
  }

  async listCheckpoints(sessionId: string, options: ListCheckpointsOptions = {}) {
    this.context.assertOpen();
    return records.listCheckpoints(this.context, sessionId, options);
  }

  async createJournal(journal: NewJournal, options?: JournalWriteOptions) {
    return records.createJournal(this.context, journal, options);
  }

  async syncJournal(id: string) {
    records.syncJournal(this.context, id);
  }

  async setJournalState(id: string, state: Exclude<JournalState, 'pending'>, writes?: JournalCommitWrites, options?: JournalWriteOptions) {
    return records.setJournalState(this.context, id, state, writes, options);
  }

  async getJournal(id: string) {
    this.context.assertOpen();
    return records.getJournal(this.context, id);
  }

  async listJournals(options: { state?: JournalState } = {}) {
    this.context.assertOpen();
    return records.listJournals(this.context, options.state);
  }

  async acquireWorkspaceLocks(request: WorkspaceLockRequest, isStale: (holder: WorkspaceLockHolder) => boolean) {
    return acquireWorkspaceLocks(this.context, request, isStale);
  }

  async releaseWorkspaceLocks(owner: string) {
    releaseWorkspaceLocks(this.context, owner);
  }

  async appendEffect(effect: NewEffect) {
    return records.appendEffect(this.context, effect);
  }

  async listEffects(options: { sessionId?: string; idempotencyKey?: string }) {
    this.context.assertOpen();
    return records.listEffects(this.context, options);
  }

  async getCommandFact(commandId: string) {
    this.context.assertOpen();
    return records.getCommandFact(this.context, commandId);
  }

  async putCommandFact(fact: Omit<CommandFact, 'createdAt'>) {
    return records.putCommandFact(this.context, fact);
  }

  async setBlobPins(owner: string, hashes: readonly string[]) {
    records.setBlobPins(this.context, owner, hashes);
  }

  async addBlobPins(owner: string, hashes: readonly string[]) {
    records.addBlobPins(this.context, owner, hashes);
  }

  async blobRoots() {
    this.context.assertOpen();
    return records.blobRoots(this.context);
  }

  async recordWriteIntent(intent: NewWriteIntent) {
    return intents.recordWriteIntent(this.context, intent);
  }

  async finishWriteIntent(id: string, checkpoints: NewCheckpoint[] = [], options: { onlyIfPending?: boolean } = {}) {
    return intents.finishWriteIntent(this.context, id, checkpoints, options);
  }

  async listWriteIntents() {
    this.context.assertOpen();
    return intents.listWriteIntents(this.context);
  }

  async sweepBlobs(candidates: readonly string[]) {
    return intents.sweepBlobs(this.context, this.blobs, candidates);
  }

  async importRecords(records: RecordsImport, options: { checkOnly?: boolean } = {}) {
    return importRecords(this.context, records, options);
  }
}
