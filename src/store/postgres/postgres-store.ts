import { NotFoundError, type CommandFact, type JournalState, type JsonObject, type MessageStatus, type PartContent, type Turn } from '../../model/index.js';
import type {
  AppendMessageInput,
  CreateSessionInput,
  CreateTurnInput,
  ForkSessionInput,
  HistoryOptions,
  JournalCommitWrites,
  ListCheckpointsOptions,
  ListSessionsOptions,
  MoveHeadInput,
  NewCheckpoint,
  NewEffect,
  NewEntry,
  NewJournal,
  Store,
  StoreCapabilities,
  StoreChange,
  StoreFootprint,
  UpdateTurnInput,
  WorkspaceLockHolder,
  WorkspaceLockRequest,
} from '../store.js';
import { toSession } from '../sqlite/rows.js';
import type { NewWriteIntent } from '../write-intent.js';
import type { RecordsImport } from '../record-import.js';
import { PgBlobStorage } from './pg-blob-storage.js';
import { importRecords } from './pg-import.js';
import type { PgContext } from './pg-context.js';
import { deleteSession, forkSession } from './pg-fork.js';
import * as intents from './pg-intents.js';
import * as messages from './pg-messages.js';
import { openPgContext } from './pg-open.js';
import * as records from './pg-records.js';
import * as sessions from './pg-sessions.js';
import { listenForChanges } from './pg-notify.js';
import { parsePostgresUrl } from './pg-url.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database[?schema=name]`. */
  url: string;
  /** Open without writing anything; every write raises `STORE_READ_ONLY`. */
  readOnly?: boolean;
  /** Connections this process keeps at most (default 4). */
  maxConnections?: number;
  /** How long to wait for a connection before `STORE_UNAVAILABLE` (default 10 000 ms). */
  connectTimeoutMs?: number;
}

/**
 * The store in a PostgreSQL database that several machines share: every record and every blob
 * (chunked, in tables) over one pooled connection set. Head moves compare-and-set under the
 * session's row lock; workspace locks and journals belong to the host that wrote them.
 *
 * @example
 * const store = await PostgresStore.open({ url: 'postgres://waypoint:secret@db.internal/waypoint' });
 */
export class PostgresStore implements Store {
  readonly capabilities: StoreCapabilities = { backend: 'postgres', multiProcess: true, blobFiles: false, blobStaging: false, multiHost: true };
  readonly blobs: PgBlobStorage;

  private constructor(private readonly context: PgContext) {
    this.blobs = new PgBlobStorage(context);
  }

  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const location = parsePostgresUrl(options.url);
    const context = await openPgContext(location, {
      readOnly: options.readOnly === true,
      maxConnections: options.maxConnections ?? 4,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    });
    return new PostgresStore(context);
  }

  subscribeChanges(listener: (change: StoreChange) => void): Promise<() => Promise<void>> {
    this.context.assertOpen();
    return listenForChanges(this.context, listener);
  }

  /** The URL with its password redacted. */
  get location(): string {
    return this.context.location;
  }

  get readOnly(): boolean {
    return this.context.readOnly;
  }

  async close(): Promise<void> {
    if (this.context.closed) return;
    this.context.closed = true;
    await this.context.pool.end().catch(() => undefined);
  }

  async footprint(): Promise<StoreFootprint> {
    const rows = await this.context.query<{ name: string; bytes: number }>(
      'measure the store',
      `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY bytes DESC`,
      [this.context.schema],
    );
    const blobTables = new Set(['blobs', 'blob_chunks']);
    const part = (kind: 'database' | 'blobs', name: string, tables: typeof rows) => ({
      kind,
      name,
      paths: [],
      bytes: tables.reduce((sum, row) => sum + row.bytes, 0),
      contents: tables.map((row) => ({ name: row.name, kind: 'table' as const, bytes: row.bytes })),
    });
    const parts = [
      part(
        'database',
        'tables and indexes',
        rows.filter((row) => !blobTables.has(row.name)),
      ),
      part(
        'blobs',
        'blob tables',
        rows.filter((row) => blobTables.has(row.name)),
      ),
    ];
    return { parts, totalBytes: parts.reduce((sum, entry) => sum + entry.bytes, 0) };
  }

  async createSession(input: CreateSessionInput = {}) {
    return sessions.createSession(this.context, input);
  }

  async getSession(id: string) {
    const session = await this.findSession(id);
    if (!session) throw new NotFoundError({ entity: 'session', id });
    return session;
  }

  async findSession(id: string) {
    const [row] = await this.context.query<Parameters<typeof toSession>[0]>('read a session', 'SELECT * FROM sessions WHERE id = $1', [id]);
    return row ? toSession(row) : null;
  }

  async listSessions(options: ListSessionsOptions = {}) {
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
    await deleteSession(this.context, id);
  }

  async appendMessage(input: AppendMessageInput) {
    return messages.appendMessage(this.context, input);
  }

  async getMessage(id: string, options: { parts?: 'full' | 'none' } = {}) {
    return (await messages.getMessages(this.context, [id], options.parts ?? 'full'))[0]!;
  }

  async getMessages(ids: readonly string[], options: { parts?: 'full' | 'none' } = {}) {
    return messages.getMessages(this.context, ids, options.parts ?? 'full');
  }

  async findMessage(id: string) {
    return messages.findMessage(this.context, id);
  }

  async history(sessionId: string, options: HistoryOptions = {}) {
    return this.context.read('read history', async (sql) => {
      const session = await sessions.requireSession(sql, sessionId);
      return messages.readPath(sql, session.head_message_id, options);
    });
  }

  async pathTo(messageId: string, options: HistoryOptions = {}) {
    return this.context.read('read history', (sql) => messages.readPath(sql, messageId, options));
  }

  async children(messageId: string) {
    return messages.children(this.context, messageId);
  }

  async listTreeMessages(treeId: string) {
    return messages.listTreeMessages(this.context, treeId);
  }

  async replaceStreamingParts(messageId: string, parts: PartContent[]) {
    return messages.changeStreaming(this.context, messageId, parts);
  }

  async finishMessage(messageId: string, status: Exclude<MessageStatus, 'streaming'>, parts?: PartContent[]) {
    return messages.changeStreaming(this.context, messageId, parts, status);
  }

  async moveHead(input: MoveHeadInput) {
    const now = Date.now();
    return this.context.write('move the head', (sql) => sessions.moveHeadIn(sql, input, now));
  }

  async appendEntry(sessionId: string, entry: NewEntry) {
    const now = Date.now();
    return this.context.write('append an entry', async (sql) => {
      await sessions.requireSession(sql, sessionId, true);
      return sessions.insertEntry(sql, sessionId, entry, now);
    });
  }

  async listEntries(sessionId: string, options: { type?: string; afterSeq?: number; last?: number } = {}) {
    return sessions.listEntries(this.context, sessionId, options);
  }

  async createTurn(input: CreateTurnInput) {
    return records.createTurn(this.context, input);
  }

  async updateTurn(id: string, patch: UpdateTurnInput) {
    return records.updateTurn(this.context, id, patch);
  }

  async getTurn(id: string) {
    return records.getTurn(this.context, id);
  }

  async listTurns(sessionId: string, options: { status?: Turn['status'] } = {}) {
    return records.listTurns(this.context, sessionId, options.status);
  }

  async addCheckpoints(checkpoints: NewCheckpoint[]) {
    const now = Date.now();
    return this.context.write('record checkpoints', (sql) => records.addCheckpointRows(sql, this.context.schema, checkpoints, now));
  }

  async getCheckpoint(id: string) {
    return records.getCheckpoint(this.context, id);
  }

  async listCheckpoints(sessionId: string, options: ListCheckpointsOptions = {}) {
    return records.listCheckpoints(this.context, sessionId, options);
  }

  async createJournal(journal: NewJournal) {
    return records.createJournal(this.context, journal);
  }

  async syncJournal(id: string) {
    await records.syncJournal(this.context, id);
  }

  async setJournalState(id: string, state: Exclude<JournalState, 'pending'>, writes?: JournalCommitWrites) {
    return records.setJournalState(this.context, id, state, writes);
  }

  async getJournal(id: string) {
    return records.getJournal(this.context, id);
  }

  async listJournals(options: { state?: JournalState } = {}) {
    return records.listJournals(this.context, options.state);
  }

  async acquireWorkspaceLocks(request: WorkspaceLockRequest, isStale: (holder: WorkspaceLockHolder) => boolean) {
    return intents.acquireWorkspaceLocks(this.context, request, isStale);
  }

  async releaseWorkspaceLocks(owner: string) {
    await intents.releaseWorkspaceLocks(this.context, owner);
  }

  async appendEffect(effect: NewEffect) {
    return records.appendEffect(this.context, effect);
  }

  async listEffects(options: { sessionId?: string; idempotencyKey?: string }) {
    return records.listEffects(this.context, options);
  }

  async getCommandFact(commandId: string) {
    return records.getCommandFact(this.context, commandId);
  }

  async putCommandFact(fact: Omit<CommandFact, 'createdAt'>) {
    return records.putCommandFact(this.context, fact);
  }

  async setBlobPins(owner: string, hashes: readonly string[]) {
    await records.setBlobPins(this.context, owner, hashes, true);
  }

  async addBlobPins(owner: string, hashes: readonly string[]) {
    await records.setBlobPins(this.context, owner, hashes, false);
  }

  async blobRoots() {
    return intents.blobRoots(this.context);
  }

  async recordWriteIntent(intent: NewWriteIntent) {
    return intents.recordWriteIntent(this.context, intent);
  }

  async finishWriteIntent(id: string, checkpoints: NewCheckpoint[] = [], options: { onlyIfPending?: boolean } = {}) {
    return intents.finishWriteIntent(this.context, id, checkpoints, options);
  }

  async listWriteIntents() {
    return intents.listWriteIntents(this.context);
  }

  async sweepBlobs(candidates: readonly string[]) {
    return intents.sweepBlobs(this.context, candidates);
  }

  async importRecords(records: RecordsImport, options: { checkOnly?: boolean } = {}) {
    return importRecords(this.context, records, options);
  }
}
