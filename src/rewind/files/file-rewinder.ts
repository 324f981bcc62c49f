import { BlobStore } from '../../blobs/index.js';
import { timingMark } from './apply-timing.js';
// Only the session-workspace module: the rest of src/checkpoint is capture code this layer does not need.
import { sessionWorkspace } from '../../checkpoint/session-workspace.js';
import { ConflictError, EventBus, InvalidArgumentError, NotFoundError, WaypointError, type Checkpoint, type Session } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import { keptFilesOf, type KeptFiles, type Workspace } from '../../workspace/index.js';
import { checkpointsFromMessage, checkpointsOfTurn, orderLike, requireUserMessage, sameIds } from './checkpoint-selection.js';
import { isDirectoryOp, recreateDirectory, removeDirectory, skippedError } from './turn-rollback-steps.js';
import { ApplyOptionsSchema, FileRewinderOptionsSchema } from '../rewind-entry-schemas.js';
import { RewindConflictError, RewindNotFoundError, SnapshotMissingError, type RewindConflictFile } from './errors/index.js';
import {
  nothingToRewind,
  planDirect,
  refuseUnlessApplicable,
  selectDirect,
  type DirectRewindPreview,
  type DirectRewindTarget,
  type OverwriteChanged,
} from './direct-rewind-plan.js';
import {
  CheckpointIdInput,
  FileRewindPreviewRequest,
  MessageIdInput,
  parseInput,
  PreviewInput as PreviewSchema,
  RedoOptionsInput,
  RewindIdInput,
  SessionIdInput,
  TurnIdInput,
} from './file-rewind-schemas.js';
import type {
  AppliedFileRewind,
  ApplyOptions,
  ConflictResolution,
  FileResolution,
  FileRewindEvents,
  FileRewindKind,
  FileRewindPreview,
  FileRewindResult,
  TurnRollbackError,
  TurnRollbackResult,
} from './file-rewind-types.js';
import { journaledApply, type ApplyHooks } from './journaled-apply.js';
import { applyInPass, inPasses, ReplanUnderLock, type Pass } from './locked-apply.js';
import type { WorkspaceLock } from './workspace-lock.js';
import { RewindLedger } from './rewind-ledger.js';
import { inspectRedo, planRedo, type RedoInspection } from './redo-plan.js';
import { planSteps, type PlannedStep } from './rewind-plan.js';
import { computePreview, type ComputedPreview } from './rewind-preview.js';
import { describeMismatch, simulateRewind } from './rewind-simulation.js';
import { SnapshotReader } from './snapshot-reader.js';
import { EarlyWrites } from './early-writes.js';

export interface FileRewinderOptions {
  store: Store;
  /** Defaults to a `BlobStore` over `store`. */
  blobs?: BlobStore;
  /** Where `rewind-apply` events go; defaults to a new bus, exposed as `events`. */
  events?: EventBus<FileRewindEvents>;
  /** The workspace of a session; defaults to `sessionWorkspace(session, store.location)`. */
  workspaceFor?: (session: Session) => Workspace;
  /** fsync files and directories while writing (default true). Only benchmarks turn it off. */
  durable?: boolean;
  /** Test hooks (real file-system changes between steps). */
  hooks?: ApplyHooks;
}

/**
 * The file half of rewind: undo an agent's file changes from its checkpoints, without ever losing
 * content. Every operation stores what it overwrites in the blob store first, writes through a
 * journal (all or nothing, recovered by `recoverJournals` after a crash), and records itself as a
 * `file-rewind` entry, so it is not offered again after a restart and can be redone.
 *
 * - Direct (`/rewind <checkpoint>`, `/rewind latest`, `/rewind code <message>`): no check
 *   for later edits; the overwritten content is kept.
 * - Cascade: every checkpoint from a message on, newest first; gives up whole if a snapshot is missing.
 * - Turn rollback: a turn's changes in reverse; per-entry errors, `ok` only when all undone.
 * - Preview then apply: conflicts (`external_modified` …) block unless resolved by `merge` or `force`.
 *
 * @example
 * const rewinder = new FileRewinder({ store });
 * const preview = await rewinder.preview({ sessionId, messageId });
 * if (preview.canApply) await rewinder.apply(preview);
 * else console.log(preview.blockers);
 */
export class FileRewinder {
  readonly events: EventBus<FileRewindEvents>;
  private readonly store: Store;
  private readonly blobs: BlobStore;
  /** Files this process's rewinds replaced, kept for reuse (`KeptFiles`): only beside a store that keeps its contents in local files. */
  private readonly kept: KeptFiles | undefined;

  constructor(private readonly options: FileRewinderOptions) {
    parseInput(FileRewinderOptionsSchema, options, 'options');
    this.store = options.store;
    this.blobs = options.blobs ?? new BlobStore(options.store);
    this.events = options.events ?? new EventBus<FileRewindEvents>();
    this.kept = this.store.capabilities.blobFiles ? keptFilesOf(this.store.location) : undefined;
  }

  /** Restores one checkpoint's file to its state before that change (a rename is moved back). */
  async restoreCheckpoint(checkpointId: string, options: ApplyOptions = {}): Promise<FileRewindResult> {
    const checkpoint = await this.store.getCheckpoint(parseInput(CheckpointIdInput, checkpointId, 'checkpointId'));
    return this.directForm(await this.store.getSession(checkpoint.sessionId), { kind: 'checkpoint', checkpointId: checkpoint.id }, options);
  }

  /** `/rewind latest`: the newest checkpoint of the session not already rewound. */
  async restoreLatest(sessionId: string, options: ApplyOptions = {}): Promise<FileRewindResult> {
    return this.directForm(await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId')), { kind: 'latest' }, options);
  }

  /** `/rewind code <messageId>`: the latest checkpoint anchored at that user message. */
  async restoreMessage(sessionId: string, messageId: string, options: ApplyOptions = {}): Promise<FileRewindResult> {
    const session = await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId'));
    const message = await requireUserMessage(this.store, session, parseInput(MessageIdInput, messageId, 'messageId'));
    return this.directForm(session, { kind: 'message', messageId: message.id }, options);
  }

  /**
   * Every checkpoint from a message on (its turn and all later ones), newest first. Reads every
   * snapshot before writing; if one is missing, corrupt or was never kept, gives up whole
   * (`SNAPSHOT_MISSING`, nothing written).
   */
  async cascade(sessionId: string, messageId: string, options: ApplyOptions = {}): Promise<FileRewindResult> {
    const session = await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId'));
    const message = await requireUserMessage(this.store, session, parseInput(MessageIdInput, messageId, 'messageId'));
    timingMark('cascade-msg');
    return this.directForm(session, { kind: 'cascade', messageId: message.id }, options);
  }

  /**
   * What a direct rewind would do, planned exactly as it applies: each file's status (a file
   * changed since the agent wrote it is `external_modified`, listed in `changed`, and blocks
   * unless `overwriteChanged` allows it). Changes nothing.
   */
  async previewDirect(sessionId: string, target: DirectRewindTarget, options: { overwriteChanged?: OverwriteChanged } = {}): Promise<DirectRewindPreview> {
    const session = await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId'));
    const { newestFirst, kind } = await selectDirect(this.store, session, target);
    if (newestFirst[0] && newestFirst[0].sessionId !== session.id)
      throw new InvalidArgumentError({
        code: 'CHECKPOINT_NOT_IN_SESSION',
        parameter: 'checkpointId',
        value: newestFirst[0].id,
        reason: `it belongs to session ${newestFirst[0].sessionId}.`,
      });
    const plan = await planDirect({
      session,
      target,
      kind,
      newestFirst,
      workspace: this.workspaceOf(session),
      snapshots: this.snapshots(),
      overwriteChanged: options.overwriteChanged ?? false,
    });
    return plan.direct;
  }

  /**
   * Turn rollback: every change of a turn undone in reverse order (a rename or move is moved
   * back, or its source rewritten and target deleted; a target already gone is fine). Entries that
   * cannot be undone (skipped at capture, missing snapshot, a created file already gone) are
   * reported in `errors` and make `ok` false; the rest is still undone, all or nothing.
   */
  async rollbackTurn(turnId: string, options: ApplyOptions = {}): Promise<TurnRollbackResult> {
    const { sessionId, checkpoints } = await checkpointsOfTurn(this.store, parseInput(TurnIdInput, turnId, 'turnId'));
    const session = await this.store.getSession(sessionId);
    return this.locked(session, (pass) =>
      this.reported(session.id, 'rewind', 'turn', async () => {
        const workspace = this.workspaceOf(session);
        const newestFirst = [...checkpoints].reverse();
        const files = newestFirst.filter((checkpoint) => !isDirectoryOp(checkpoint));
        const simulation = await simulateRewind({
          checkpoints: files,
          workspace,
          snapshots: this.snapshots(),
          policy: 'rollback',
          includeShellChanges: true,
          resolutions: {},
        });
        const errors: TurnRollbackError[] = simulation.problems.map((problem) => ({
          checkpointId: problem.checkpointId,
          path: problem.path,
          code: problem.code,
          message: problem.reason,
        }));
        const undone = [...simulation.undone];
        // Directories carry no content: recreate removed ones before the files, remove created ones after.
        for (const checkpoint of newestFirst.filter((entry) => entry.op === 'rmdir')) {
          const error = checkpoint.status === 'skipped' ? skippedError(checkpoint) : recreateDirectory(workspace, checkpoint);
          if (error) errors.push(error);
          else undone.push(checkpoint.id);
        }
        const steps = planSteps(simulation.paths.values());
        const applied = await this.journaled(session, workspace, steps, 'turn', 'rewind', null, orderLike(newestFirst, undone), options, pass);
        for (const checkpoint of newestFirst.filter((entry) => entry.op === 'mkdir')) {
          const error = checkpoint.status === 'skipped' ? skippedError(checkpoint) : removeDirectory(workspace, checkpoint);
          if (error) errors.push(error);
        }
        return { ...applied, ok: errors.length === 0, errors };
      }),
    );
  }

  /**
   * Simulates rewinding a message's turn and every later one (`messageId`), or one turn (`turnId`),
   * and reports each file. Shell-command changes are listed in `shellChanges` and only included
   * with `includeShellChanges: true`. Changes already rewound are not offered again.
   */
  async preview(request: FileRewindPreviewRequest): Promise<FileRewindPreview> {
    return (await this.computePreview(parseInput(FileRewindPreviewRequest, request, 'request'))).preview;
  }

  /**
   * Applies a preview after re-validating it: if any file changed since, or the set of changes
   * differs, raises `REWIND_CONFLICT` and writes nothing. Journaled, compensated on failure,
   * recorded; `onCommit` writes commit in the same transaction. Files the preview resolved with
   * `skip` are not written, nor recorded (a redo leaves them too), and are listed in `skipped`.
   */
  async apply(preview: FileRewindPreview, options: ApplyOptions = {}): Promise<FileRewindResult> {
    const given = parseInput(PreviewSchema, preview, 'preview');
    const session = await this.store.getSession(given.sessionId);
    return this.locked(session, (pass) =>
      this.reported(session.id, 'rewind', 'preview', async () => {
        const target = given.target as FileRewindPreview['target'];
        const fresh = await this.computePreview({
          sessionId: given.sessionId,
          ...('messageId' in target ? { messageId: target.messageId } : { turnId: target.turnId }),
          includeShellChanges: given.includeShellChanges,
          resolutions: given.resolutions,
        });
        const changed: RewindConflictFile[] = [];
        const previewed = new Map(given.files.map((file) => [file.path, file.currentHash]));
        for (const file of fresh.preview.files) {
          // A skipped file is not written: what happens to it meanwhile is the person's.
          if (file.resolution === 'skip' && previewed.has(file.path)) continue;
          if (!previewed.has(file.path)) changed.push({ path: file.path, status: file.status, reason: 'this file joined the rewind after the preview' });
          else if (previewed.get(file.path) !== file.currentHash)
            changed.push({
              path: file.path,
              status: 'external_modified',
              reason: `${describeMismatch(file.currentHash, previewed.get(file.path) ?? null)} since the preview`,
            });
        }
        if (!sameIds(fresh.preview.checkpointIds, (preview.checkpointIds ?? []) as string[])) {
          changed.push({
            path: '(checkpoints)',
            status: 'external_modified',
            reason: 'the set of changes to undo is different now (a change was recorded or rewound since the preview)',
          });
        }
        if (changed.length > 0) throw new RewindConflictError({ files: changed, hint: 'Preview again and check the files before applying.' });
        if (fresh.preview.checkpointIds.length === 0) throw nothingToRewind(fresh.preview.blockers.join('; '), { sessionId: session.id });
        if (!fresh.preview.canApply) {
          const unsafe = fresh.preview.files.filter((file) => file.status !== 'safe' && file.resolution === null);
          // No resolution brings back content that is not there: a missing snapshot is its own refusal.
          const snapshots = unsafe.filter((file) => file.status === 'checkpoint_missing' || file.status === 'checkpoint_unreadable');
          if (snapshots.length > 0 && snapshots.length === unsafe.length) {
            const problems = new Map(fresh.simulation.problems.map((problem) => [problem.path, problem]));
            throw new SnapshotMissingError({
              snapshots: snapshots.map((file) => ({
                checkpointId: problems.get(file.path)?.checkpointId ?? file.checkpointIds.at(-1) ?? '',
                path: file.path,
                hash: problems.get(file.path)?.hash ?? null,
                reason: file.reason ?? file.status,
                corrupt: file.status === 'checkpoint_unreadable',
              })),
            });
          }
          throw new RewindConflictError({
            files: unsafe.length
              ? unsafe.map((file) => ({ path: file.path, status: file.status, reason: file.reason ?? file.status }))
              : fresh.preview.blockers.map((blocker) => ({ path: '(rewind)', status: 'blocked', reason: blocker })),
          });
        }
        const workspace = this.workspaceOf(session);
        const applied = await this.journaled(session, workspace, fresh.steps, 'preview', 'rewind', null, fresh.simulation.undone, options, pass);
        const skipped = fresh.preview.files.filter((file) => file.resolution === 'skip').map((file) => file.path);
        return skipped.length > 0 ? { ...applied, skipped } : applied;
      }),
    );
  }

  /**
   * Undoes an applied rewind (or a redo): every file it changed returns to its content before it.
   * Checked like an apply: a file changed since raises `REWIND_CONFLICT` unless resolved with
   * `force` or `merge` (see `previewRedo`), or left out: the paths in `skip` stay as they are and
   * the rest is redone. Recorded itself, so it can be redone in turn.
   */
  async redo(
    sessionId: string,
    rewindId: string,
    redoOptions: { resolutions?: Record<string, ConflictResolution>; skip?: string[] } & ApplyOptions = {},
  ): Promise<FileRewindResult> {
    parseInput(ApplyOptionsSchema, redoOptions, 'options');
    const { skip: skipped } = redoOptions;
    const session = await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId'));
    const id = parseInput(RewindIdInput, rewindId, 'rewindId');
    const { resolutions = {}, skip = [] } = parseInput(
      RedoOptionsInput,
      { ...(redoOptions.resolutions ? { resolutions: redoOptions.resolutions } : {}), ...(skipped ? { skip: skipped } : {}) },
      'options',
    );
    return this.locked(session, async (pass) => {
      const rewind = (await RewindLedger.load(this.store, session.id)).find(id);
      if (!rewind) throw new RewindNotFoundError({ sessionId: session.id, rewindId: id });
      if (rewind.redone) {
        throw new ConflictError({
          code: 'REWIND_ALREADY_REDONE',
          message: `Rewind ${id} was already redone; redo that redo instead (see listRewinds). Nothing was changed.`,
          details: { sessionId, rewindId: id },
        });
      }
      return this.reported(session.id, 'redo', 'redo', async () => {
        const workspace = this.workspaceOf(session);
        const steps = await planRedo(rewind, workspace, this.snapshots(), resolutions, new Set(skip));
        return this.journaled(session, workspace, steps, 'redo', 'redo', rewind.rewindId, rewind.checkpointIds, redoOptions, pass);
      });
    });
  }

  /** What `redo` with these resolutions would do, file by file (`mergeAvailable` where merge applies cleanly). Changes nothing. */
  async previewRedo(sessionId: string, rewindId: string, resolutions: Record<string, ConflictResolution> = {}): Promise<RedoInspection['files']> {
    const session = await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId'));
    const id = parseInput(RewindIdInput, rewindId, 'rewindId');
    const chosen = parseInput(RedoOptionsInput, { resolutions }, 'options').resolutions ?? {};
    const rewind = (await RewindLedger.load(this.store, session.id)).find(id);
    if (!rewind) throw new RewindNotFoundError({ sessionId: session.id, rewindId: id });
    return (await inspectRedo(rewind, this.workspaceOf(session), this.snapshots(), chosen)).files;
  }

  /** The session's applied file rewinds and redos, oldest first. */
  async listRewinds(sessionId: string): Promise<AppliedFileRewind[]> {
    const session = await this.store.getSession(parseInput(SessionIdInput, sessionId, 'sessionId'));
    return (await RewindLedger.load(this.store, session.id)).rewinds;
  }

  /** A reader of this store's contents for one plan; files this process wrote are known by their stamps where the store's contents are local files. */
  private snapshots(): SnapshotReader {
    return new SnapshotReader(this.blobs, { knownByStamp: this.store.capabilities.blobFiles });
  }

  private async computePreview(request: FileRewindPreviewRequest): Promise<ComputedPreview> {
    const session = await this.store.getSession(request.sessionId);
    let checkpoints: Checkpoint[];
    let target: FileRewindPreview['target'];
    if (request.messageId !== undefined) {
      const message = await requireUserMessage(this.store, session, request.messageId);
      checkpoints = await checkpointsFromMessage(this.store, session, message);
      target = { messageId: message.id };
    } else {
      checkpoints = (await checkpointsOfTurn(this.store, request.turnId!, session.id)).checkpoints;
      target = { turnId: request.turnId! };
    }
    const rewound = (await RewindLedger.load(this.store, session.id)).rewoundCheckpoints();
    return computePreview({
      sessionId: session.id,
      target,
      checkpoints,
      rewound,
      includeShellChanges: request.includeShellChanges ?? false,
      resolutions: (request.resolutions ?? {}) as Record<string, FileResolution>,
      workspace: this.workspaceOf(session),
      snapshots: this.snapshots(),
    });
  }

  /** A direct form, selected and planned in each pass (see `inPasses`), applied under the lock. */
  private directForm(session: Session, target: DirectRewindTarget, options: ApplyOptions): Promise<FileRewindResult> {
    return this.locked(session, async (pass) => {
      const { newestFirst, kind } = await selectDirect(this.store, session, target, pass.ledger);
      timingMark('select');
      return this.reported(session.id, 'rewind', kind, () => this.direct(session, target, newestFirst, kind, options, pass));
    });
  }

  /**
   * Direct restore of checkpoints (newest first), all snapshots read first. A file changed since
   * the agent wrote it is overwritten only when `overwriteChanged` allows it (by default any is);
   * otherwise `REWIND_OVERWRITES_CHANGES` and nothing is written.
   */
  private async direct(
    session: Session,
    target: DirectRewindTarget,
    newestFirst: Checkpoint[],
    kind: FileRewindKind,
    options: ApplyOptions,
    pass: Pass,
  ): Promise<FileRewindResult> {
    const workspace = this.workspaceOf(session);
    // The new contents' temp files are written while the rest is planned and the journal recorded;
    // those the apply does not take (a refusal, a plan that came out otherwise) are removed.
    const early = new EarlyWrites(this.options.durable ?? true, this.kept);
    try {
      const plan = await planDirect({
        session,
        target,
        kind,
        newestFirst,
        workspace,
        snapshots: this.snapshots(),
        overwriteChanged: options.overwriteChanged ?? true,
        early,
      });
      timingMark('planDirect');
      refuseUnlessApplicable(plan, session.id);
      return await this.journaled(session, workspace, plan.steps, kind, 'rewind', null, plan.simulation.undone, options, pass, early);
    } finally {
      await early.dispose();
    }
  }

  private async journaled(
    session: Session,
    workspace: Workspace,
    steps: PlannedStep[],
    kind: FileRewindKind,
    action: 'rewind' | 'redo',
    undoes: string | null,
    checkpointIds: string[],
    options: ApplyOptions,
    pass: Pass,
    early?: EarlyWrites,
  ): Promise<FileRewindResult> {
    if (options.onCommit !== undefined && typeof options.onCommit !== 'function') {
      throw new InvalidArgumentError({
        parameter: 'onCommit',
        value: options.onCommit,
        reason: 'must be a function returning the writes to commit with the rewind',
      });
    }
    const apply = async (lock: WorkspaceLock) => {
      const { journal, files } = await journaledApply({
        store: this.store,
        blobs: this.blobs,
        workspace,
        sessionId: session.id,
        kind,
        action,
        undoes,
        checkpointIds,
        steps,
        onCommit: options.onCommit,
        hooks: this.options.hooks,
        durable: this.options.durable ?? true,
        lock,
        early,
        kept: this.kept,
      });
      return { rewindId: journal.id, sessionId: session.id, kind, checkpointIds, files };
    };
    return applyInPass({ store: this.store, blobs: this.blobs, workspace, sessionId: session.id, purpose: `${action} of session ${session.id}`, pass }, apply);
  }

  /** Runs an operation's body in passes (see `inPasses`): planned first without the workspace lock, applied under it. */
  private locked<Result>(session: Session, body: (pass: Pass) => Promise<Result>): Promise<Result> {
    return inPasses(this.store, session.id, body);
  }

  /** Runs an applying operation and emits its event: `file_only` after commit, `unavailable` on failure. */
  private async reported<Result extends FileRewindResult>(
    sessionId: string,
    action: 'rewind' | 'redo',
    kind: FileRewindKind,
    body: () => Promise<Result>,
  ): Promise<Result> {
    let result: Result;
    try {
      result = await body();
    } catch (error) {
      if (error instanceof ReplanUnderLock) throw error; // not a failure: planned again under the lock
      if (!(error instanceof InvalidArgumentError) && !(error instanceof NotFoundError)) {
        const described = WaypointError.is(error) ? { code: error.code, message: error.message } : { code: 'INTERNAL', message: String(error) };
        this.events.emit('rewind-apply', { sessionId, strategy: 'unavailable', action, kind, rewindId: null, checkpointIds: [], files: [], error: described });
      }
      throw error;
    }
    this.events.emit('rewind-apply', {
      sessionId,
      strategy: 'file_only',
      action,
      kind,
      rewindId: result.rewindId,
      checkpointIds: result.checkpointIds,
      files: result.files,
      error: null,
    });
    return result;
  }

  private workspaceOf(session: Session): Workspace {
    return this.options.workspaceFor ? this.options.workspaceFor(session) : sessionWorkspace(session, this.store.location);
  }
}
