import type {
  Checkpoint,
  CheckpointOp,
  CheckpointSource,
  CheckpointStatus,
  CommandFact,
  Effect,
  EffectStatus,
  Entry,
  HeadMoveReason,
  Journal,
  JournalItem,
  JournalState,
  JsonObject,
  JsonValue,
  Message,
  MessageKind,
  MessageRole,
  MessageStatus,
  MessageWithParts,
  PartContent,
  Session,
  SessionKind,
  Turn,
  TurnStatus,
} from '../model/index.js';
import type { BlobStorage } from './blob-storage.js';
import type { RecordsImport, RecordsImportResult } from './record-import.js';
import type { BlobSweepResult, NewWriteIntent, WriteIntent } from './write-intent.js';

export type {
  StoredBlobInput,
  BlobStorageStats,
  BlobStorage,
  PendingBlobWrite,
  RecompressDictionary,
  RecompressEncoding,
  RecompressOptions,
  RecompressReport,
  StagedBlobBatch,
  StagingBlobStorage,
} from './blob-storage.js';
export { EMPTY_RECOMPRESS_REPORT } from './blob-storage.js';

/**
 * What a backend can do, so callers branch on capabilities instead of backend names.
 */
export interface StoreCapabilities {
  /** Backend name for diagnostics only (`sqlite`, later `postgres`). Never branch on it. */
  readonly backend: string;
  /** Several processes may open the same store at once. */
  readonly multiProcess: boolean;
  /** Blob bytes live in files beside the database (swept by GC) rather than in a table. */
  readonly blobFiles: boolean;
  /** `store.blobs` also implements `StagingBlobStorage` (raw first, compress later). */
  readonly blobStaging: boolean;
  /**
   * Processes on several machines share the store, so a session's workspace may be rebuilt where
   * its directory is not reachable: a new session's files are scanned into the store when it starts.
   */
  readonly multiHost?: boolean;
}

/** A change another process (or this one) committed: the session it touched, or null when anything may have changed. */
export interface StoreChange {
  sessionId: string | null;
}

export interface CreateSessionInput {
  /** Defaults to a new id. */
  id?: string;
  title?: string;
  workdir?: string | null;
  gitBranch?: string | null;
  metadata?: JsonObject;
}

export interface NewMessage {
  role: MessageRole;
  kind?: MessageKind;
  status?: MessageStatus;
  parts: PartContent[];
  turnId?: string | null;
  metadata?: JsonObject;
  /** Defaults to a new id. */
  id?: string;
}

export interface AppendMessageInput extends NewMessage {
  sessionId: string;
  /** Compare-and-set: fail with `HEAD_MOVED` unless the head is this message (null: empty). */
  expectedHeadId?: string | null;
}

export interface AppendResult {
  message: MessageWithParts;
  session: Session;
}

/** Which part data to load with messages. `none` loads part metadata (type, size) only. */
export type PartsLoad = 'full' | 'none';

export interface HistoryOptions {
  parts?: PartsLoad;
  /** Only messages at depth >= fromDepth (0 = root). */
  fromDepth?: number;
  /** Only messages at depth < toDepth. */
  toDepth?: number;
  /** The newest `last` messages of the path (applied after the depth bounds). */
  last?: number;
  /** Only messages of these roles (the walk still follows every link; `last` counts all roles). */
  roles?: readonly MessageRole[];
}

export interface MoveHeadInput {
  sessionId: string;
  /** A message of the session's conversation tree, or null for an empty history. */
  to: string | null;
  reason: HeadMoveReason;
  /** Compare-and-set on the current head. */
  expectedFrom?: string | null;
  /** Increment the branch generation (rewinds do; redo and plain appends do not). */
  bumpGeneration?: boolean;
  /** Extra fields recorded in the head-move entry. */
  data?: JsonObject;
}

export interface MoveHeadResult {
  session: Session;
  entry: Entry;
}

export interface NewEntry {
  type: string;
  data: JsonObject;
}

export interface ForkSessionInput {
  parentSessionId: string;
  /** The message the child's head points at (null: empty history in the same tree). */
  at: string | null;
  kind: Exclude<SessionKind, 'main'>;
  id?: string;
  title?: string;
  workdir?: string | null;
  metadata?: JsonObject;
  /** Entries copied or written into the child in the same transaction (model choice, goals …). */
  entries?: NewEntry[];
  /** Messages appended in the child after `at`, in the same transaction (fork notes …). */
  messages?: NewMessage[];
  /** Idempotency: the same command id returns the same child and writes nothing new. */
  commandId?: string;
}

export interface ForkSessionResult {
  session: Session;
  /** False when `commandId` had already produced this child. */
  created: boolean;
}

export interface ListSessionsOptions {
  parentSessionId?: string;
  rootSessionId?: string;
  treeId?: string;
  limit?: number;
}

export interface CreateTurnInput {
  sessionId: string;
  userMessageId: string;
  id?: string;
  metadata?: JsonObject;
}

export interface UpdateTurnInput {
  status?: TurnStatus;
  boundary?: string[] | null;
  metadata?: JsonObject;
  endedAt?: number | null;
}

export interface NewCheckpoint {
  sessionId: string;
  turnId?: string | null;
  anchorMessageId?: string | null;
  op: CheckpointOp;
  path: string;
  toPath?: string | null;
  beforeHash: string | null;
  afterHash: string | null;
  beforeMode?: number | null;
  afterMode?: number | null;
  patch?: string | null;
  source: CheckpointSource;
  toolName?: string | null;
  toolCallId?: string | null;
  status?: CheckpointStatus;
  skipReason?: string | null;
  id?: string;
}

export interface ListCheckpointsOptions {
  turnId?: string;
  anchorMessageId?: string;
  /** Only checkpoints with seq > afterSeq. */
  afterSeq?: number;
  /** The newest `last` checkpoints (still returned oldest first). */
  last?: number;
}

export interface NewJournal {
  sessionId?: string | null;
  kind: string;
  root: string;
  items: JournalItem[];
  metadata?: JsonObject;
  id?: string;
}

export interface JournalWriteOptions {
  /** Sync the commit to stable storage before returning (default true); see `Store.createJournal`. */
  durable?: boolean;
}

/**
 * Store writes that must commit together with a journal's final state: the record of an applied
 * rewind, a head move made by edit-and-resend … Declarative, because a synchronous transaction
 * cannot await a callback.
 */
export interface JournalCommitWrites {
  entries?: Array<{ sessionId: string; entry: NewEntry }>;
  headMoves?: MoveHeadInput[];
}

/** A request for the workspace locks of one operation (see `Store.acquireWorkspaceLocks`). */
export interface WorkspaceLockRequest {
  /** A token naming this holding, unique per operation. */
  owner: string;
  /** The directories to lock (workspace roots, absolute real paths). */
  paths: readonly string[];
  pid: number;
  host: string;
  /** What the holder is doing, for the message a waiting person sees. */
  purpose: string;
}

/** Who holds a workspace lock. */
export interface WorkspaceLockHolder {
  path: string;
  owner: string;
  pid: number;
  host: string;
  purpose: string;
  acquiredAt: number;
}

export interface NewEffect {
  sessionId: string;
  turnId?: string | null;
  toolName: string;
  toolCallId?: string | null;
  idempotencyKey: string;
  status: EffectStatus;
  request?: JsonValue;
  result?: JsonValue;
}

/** One part of a store's footprint: what it holds, where, and how many bytes it takes. */
export interface StoreFootprintPart {
  /** What the part holds: `database` (records), `blobs` (file contents, dead space not yet reclaimed included), or `other`. */
  kind: 'database' | 'blobs' | 'other';
  /** A short label for people (`database file and WAL`, `blob packs` …). */
  name: string;
  /** The files or directories it is made of (empty for a store that is not on the local disk). */
  paths: string[];
  bytes: number;
  /** What the part is made of inside, when the backend can tell (SQLite: each table and index, and free pages), largest first. */
  contents?: StoreFootprintContent[];
}

/** One table, index or unused space inside a store part, with the bytes of its pages. */
export interface StoreFootprintContent {
  name: string;
  kind: 'table' | 'index' | 'free';
  bytes: number;
}

/** Where a store's bytes are: each backend names its own parts, so callers need not know its file layout. */
export interface StoreFootprint {
  parts: StoreFootprintPart[];
  totalBytes: number;
}

/**
 * The append-only session store. Every method is async; every write that belongs together is one
 * transaction. Unknown ids raise `NotFoundError` (`SESSION_NOT_FOUND`, `MESSAGE_NOT_FOUND` …).
 *
 * Backends: `SqliteStore` (embedded default). All backends pass `runStoreConformance`.
 */
export interface Store {
  readonly location: string;
  readonly capabilities: StoreCapabilities;
  /**
   * Where the backend can announce commits across processes (PostgreSQL's LISTEN/NOTIFY): calls
   * `listener` with each session a committed write touched (appends, head moves, rewinds, forks,
   * entries, checkpoints) by any process; resolves to the unsubscribe. Absent elsewhere: watch
   * the store's files instead.
   */
  subscribeChanges?(listener: (change: StoreChange) => void): Promise<() => Promise<void>>;
  readonly readOnly: boolean;
  readonly blobs: BlobStorage;
  close(): Promise<void>;
  /** The bytes the store occupies, by part (database, blobs …). Reads only. */
  footprint(): Promise<StoreFootprint>;
  /**
   * Optional: give the database's free space back to the file system (GC calls it after a sweep).
   * Best effort and safe beside other processes; returns the bytes the database shrank by.
   */
  compactDatabase?(): Promise<{ freedBytes: number }>;

  // sessions
  createSession(input?: CreateSessionInput): Promise<Session>;
  getSession(id: string): Promise<Session>;
  findSession(id: string): Promise<Session | null>;
  listSessions(options?: ListSessionsOptions): Promise<Session[]>;
  setTitle(sessionId: string, title: string): Promise<Session>;
  patchSessionMetadata(sessionId: string, patch: JsonObject): Promise<Session>;
  /** A new session pointing at an existing message of the parent's tree; ancestors are shared. */
  forkSession(input: ForkSessionInput): Promise<ForkSessionResult>;
  /**
   * Explicit deletion: the session, its entries, turns, checkpoints, effects, messages no other
   * session needs, and blob pins owned by `session:<id>` or `session:<id>:<anything>`.
   */
  deleteSession(id: string): Promise<void>;

  // messages and the tree
  appendMessage(input: AppendMessageInput): Promise<AppendResult>;
  getMessage(id: string, options?: { parts?: PartsLoad }): Promise<MessageWithParts>;
  /** Many messages at once (one query), in the order asked; an unknown id raises `MESSAGE_NOT_FOUND`. */
  getMessages(ids: readonly string[], options?: { parts?: PartsLoad }): Promise<MessageWithParts[]>;
  findMessage(id: string): Promise<Message | null>;
  /** The path from the tree root to the session's head, oldest first. */
  history(sessionId: string, options?: HistoryOptions): Promise<MessageWithParts[]>;
  /** The path from the tree root to `messageId`, oldest first. */
  pathTo(messageId: string, options?: HistoryOptions): Promise<MessageWithParts[]>;
  children(messageId: string): Promise<Message[]>;
  /** Every message of a conversation tree, cut-off branches included, in creation order (metadata only). */
  listTreeMessages(treeId: string): Promise<Message[]>;
  /** While a message streams its parts may be replaced; afterwards it is immutable. */
  replaceStreamingParts(messageId: string, parts: PartContent[]): Promise<MessageWithParts>;
  /** Finish a streaming message (complete, error, interrupted); the only status change allowed. */
  finishMessage(messageId: string, status: Exclude<MessageStatus, 'streaming'>, parts?: PartContent[]): Promise<MessageWithParts>;
  moveHead(input: MoveHeadInput): Promise<MoveHeadResult>;

  // entries
  appendEntry(sessionId: string, entry: NewEntry): Promise<Entry>;
  listEntries(sessionId: string, options?: { type?: string; afterSeq?: number; last?: number }): Promise<Entry[]>;

  // turns
  createTurn(input: CreateTurnInput): Promise<Turn>;
  updateTurn(id: string, patch: UpdateTurnInput): Promise<Turn>;
  getTurn(id: string): Promise<Turn>;
  listTurns(sessionId: string, options?: { status?: Turn['status'] }): Promise<Turn[]>;

  // checkpoints
  addCheckpoints(checkpoints: NewCheckpoint[]): Promise<Checkpoint[]>;
  getCheckpoint(id: string): Promise<Checkpoint>;
  listCheckpoints(sessionId: string, options?: ListCheckpointsOptions): Promise<Checkpoint[]>;

  // journals
  /**
   * Record a pending journal. By default it is durable (survives a power loss) when this returns;
   * with `durable: false` it survives a process crash only, until `syncJournal` is called, so the
   * caller can overlap that sync with its own (it must call it before changing any file it names).
   */
  createJournal(journal: NewJournal, options?: JournalWriteOptions): Promise<Journal>;
  /** Make a pending journal, and every write committed before it, durable (one full sync). */
  syncJournal(id: string): Promise<void>;
  /**
   * Finish a pending journal. `writes` commit in the same transaction: if any of them fails
   * (e.g. a head move that is no longer valid), nothing is written and the journal stays pending.
   * Durable when this returns unless `durable: false` (then it survives a process crash; a power
   * loss may lose it, leaving the journal pending — recovery then rolls the files back).
   */
  setJournalState(id: string, state: Exclude<JournalState, 'pending'>, writes?: JournalCommitWrites, options?: JournalWriteOptions): Promise<Journal>;
  getJournal(id: string): Promise<Journal>;
  listJournals(options?: { state?: JournalState }): Promise<Journal[]>;

  // workspace locks
  /**
   * Take the locks on `request.paths` for `request.owner`, all or none, in one transaction. A lock
   * of another owner on one of the paths, or on a directory inside or above one of them, blocks,
   * unless `isStale(holder)` says that holder is gone (it is then taken over). Returns the holder
   * that blocks, or null when the locks are held. Rewinds of one workspace serialize on these.
   */
  acquireWorkspaceLocks(request: WorkspaceLockRequest, isStale: (holder: WorkspaceLockHolder) => boolean): Promise<WorkspaceLockHolder | null>;
  /** Release every lock `owner` holds. */
  releaseWorkspaceLocks(owner: string): Promise<void>;

  // effects
  appendEffect(effect: NewEffect): Promise<Effect>;
  listEffects(options: { sessionId?: string; idempotencyKey?: string }): Promise<Effect[]>;

  // command facts
  getCommandFact(commandId: string): Promise<CommandFact | null>;
  /** Record a command's result; when the id is already recorded, returns the earlier fact unchanged. */
  putCommandFact(fact: Omit<CommandFact, 'createdAt'>): Promise<CommandFact>;

  /**
   * Keep blobs alive for an owner that is not a record (a workspace scan's last snapshot …):
   * replaces the owner's pins with `hashes` (an empty list releases them).
   */
  setBlobPins(owner: string, hashes: readonly string[]): Promise<void>;
  /** Add `hashes` to the owner's pins, keeping those it has (pins another process added stay). */
  addBlobPins(owner: string, hashes: readonly string[]): Promise<void>;
  /** Every blob hash the store's records refer to (checkpoints, journals, parts, pins, write intents): the GC roots. */
  blobRoots(): Promise<Set<string>>;

  // writes in flight (see write-intent.ts)
  /**
   * Record a write in flight, owned by this process, before storing its blobs: its `hashes` are GC
   * roots until it is finished, and `sweepBlobs` sees it whenever it commits first. A crashed
   * writer's intent stays until recovery (`recoverWriteIntents`) completes or drops it.
   */
  recordWriteIntent(intent: NewWriteIntent): Promise<WriteIntent>;
  /**
   * Finish a write in flight: add `checkpoints` (none: the write was given up) and remove the
   * intent, in one transaction, so its blobs are referenced by the rows the moment the pins go.
   * With `onlyIfPending`, an intent another process finished meanwhile adds nothing (returns []).
   */
  finishWriteIntent(id: string, checkpoints?: NewCheckpoint[], options?: { onlyIfPending?: boolean }): Promise<Checkpoint[]>;
  listWriteIntents(): Promise<WriteIntent[]>;
  /**
   * Delete those of `candidates` (blobs a mark phase found unreachable) that are still unreachable,
   * checked in the same write transaction as the deletion: nothing a record, a write intent (of a
   * live process, or one that changes files and awaits recovery) or a kept blob's delta chain
   * refers to by then is deleted. Expires intents of dead processes that change no files.
   */
  sweepBlobs(candidates: readonly string[]): Promise<BlobSweepResult>;

  /**
   * Write records copied from another store (sessions, messages, entries, turns, checkpoints,
   * effects, pins), ids, sequence numbers and times kept, in one transaction. A record whose id the
   * store already holds must be identical (then it is counted `existing` and not written again), or
   * the whole import is refused with `IMPORT_CONFLICT` and nothing is written; so is a record whose
   * place in its session (`seq`) another record holds. With `checkOnly`, nothing is written: the
   * result says what would be. The blobs the records name must be stored (and pinned) first.
   */
  importRecords(records: RecordsImport, options?: { checkOnly?: boolean }): Promise<RecordsImportResult>;
}
