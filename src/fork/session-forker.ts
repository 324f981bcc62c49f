import { BlobStore } from '../blobs/index.js';
import { PRIMARY_ROOT, sessionWorkspace } from '../checkpoint/session-workspace.js';
import { EventBus, InvalidArgumentError, newId, type Checkpoint, type JsonObject, type Message, type Session, type SessionKind } from '../model/index.js';
import { listSavePoints, type ConflictResolution, type FileRewindPreview, type FileRewindResult } from '../rewind/index.js';
import { RewindLedger } from '../rewind/files/rewind-ledger.js';
import type { Store } from '../store/store.js';
import { checkpointsAfterMessage, checkpointsFrom } from './changes-after.js';
import { ForkConfirmationRequiredError, NoWorkspaceCheckpointError, parentRunningError } from './fork-errors.js';
import { ForkCallSchema, SessionForkerOptionsSchema } from './fork-entry-schemas.js';
import { forkNotes, type ForkKind } from './fork-notes.js';
import { ForkFromRequest, ForkRequest, parseInput } from './fork-schemas.js';
import { copiedState } from './fork-state.js';
import type { ForkEvents, ForkOriginData, ForkPreview, ForkResult, ForkStrategy } from './fork-types.js';
import { discardWorkTree, type IsolatedMaterialization } from './isolated-workspace.js';
import { applySharedFiles, changesFiles, previewSharedFiles } from './shared-files.js';
import { materializerFor } from './store-materialize.js';
import { checkStableBoundary, type GoalBoundary } from './stable-boundary.js';

/** The entry a shared-workspace fork writes into the parent, with its file rewind, before the child exists. */
export const FORK_FILES_ENTRY = 'fork-files';
/** The child's record of where it came from. */
export const FORK_ORIGIN_ENTRY = 'fork-origin';
const FORK_COMMAND_KIND = 'session-fork';

export interface SessionForkerOptions {
  store: Store;
  blobs?: BlobStore;
  events?: EventBus<ForkEvents>;
}

/** A resolved fork point. */
interface ForkPlan {
  request: ForkRequest;
  parent: Session;
  from: ForkKind;
  kind: Exclude<SessionKind, 'main'>;
  at: Message | null;
  /** When the fork point was (ms): which goal was current then. */
  moment: number;
  /** The parent's checkpoints after the fork point, oldest first. */
  after: Checkpoint[];
  /** Whether a shared-workspace fork of this kind undoes them (stable forks and side chats never touch files). */
  undoesFiles: boolean;
  pinned: GoalBoundary | null;
  strategy: ForkStrategy;
}

/**
 * The four ways to branch a session (and `forkFrom`, a fork at a turn's save point):
 *
 * | `from` | history of the child | files |
 * | --- | --- | --- |
 * | `checkpoint` (`/fork`, `/fork latest`, `/fork <id>`) | up to just before the user message of the checkpoint's turn | that change and every later one undone |
 * | `message` (parent idle) | up to and including the message | only changes after it undone |
 * | `stable` (fork button) | up to the turn's pinned final reply | untouched; the parent may be running |
 * | `side-chat` (`/side`, `/btw`) | up to the latest real user input, model-only | untouched |
 *
 * Every fork is one store transaction (`store.forkSession`: session, copied state entries, the
 * hidden note and the divider, the command fact); the same `commandId` returns the same child.
 * Ancestors are shared, never copied. **Shared** workspace (default): a fork that must change files
 * refuses until `confirm: true` (see `previewFork`); the file rewind is the parent's — recorded as a
 * `file-rewind` entry of the parent, committed first together with a `fork-files` entry naming the
 * command id, so a replay after a crash between the two commits finishes the fork without touching
 * files again — and `FileRewinder.redo(parentId, rewindId)` brings back what it overwrote.
 * **Isolated**: the child gets its own directory materialized at the fork point; the parent's files
 * are only read.
 *
 * @example
 * const forker = new SessionForker({ store });
 * const preview = await forker.previewFork({ from: 'checkpoint', sessionId });
 * if (preview.requiresConfirmation && (await ask(preview.files))) await forker.fork({ from: 'checkpoint', sessionId, confirm: true });
 * const side = await forker.fork({ from: 'side-chat', sessionId, question: 'What does this regex do?' });
 */
export class SessionForker {
  readonly events: EventBus<ForkEvents>;
  private readonly store: Store;
  private readonly blobs: BlobStore;

  constructor(options: SessionForkerOptions) {
    parseInput(SessionForkerOptionsSchema, options, 'options');
    this.store = options.store;
    this.blobs = options.blobs ?? new BlobStore(options.store);
    this.events = options.events ?? new EventBus<ForkEvents>();
  }

  /** What `fork(request)` would do: the fork point, the changes after it, and for a shared workspace the file preview. Changes nothing. */
  async previewFork(request: ForkRequest): Promise<ForkPreview> {
    const plan = await this.plan(parseInput(ForkRequest, request, 'request'));
    const files = await this.sharedPreview(plan);
    const workspace = plan.request.workspace;
    return {
      from: plan.from,
      parentSessionId: plan.parent.id,
      at: plan.at?.id ?? null,
      strategy: plan.strategy,
      checkpointIds: plan.after.map((checkpoint) => checkpoint.id),
      files,
      requiresConfirmation: files !== null && changesFiles(files),
      workdir: workspace?.mode === 'isolated' ? (workspace.dir ?? null) : null,
    };
  }

  /** Creates the child (see the class comment). With `confirm: true` and `preview`, the files are re-checked against what the person saw. */
  async fork(request: ForkRequest & { preview?: ForkPreview; onProgress?: (done: number, total: number) => void }): Promise<ForkResult> {
    parseInput(ForkCallSchema, request, 'request');
    const { preview, onProgress, ...rest } = request;
    const input = parseInput(ForkRequest, rest, 'request');
    if (input.commandId !== undefined) {
      const replayed = await this.replay(input.commandId, input.from);
      if (replayed) return replayed;
    }
    const plan = await this.plan(input);
    const commandId = input.commandId ?? newId('command');
    const childId = newId('session');
    let fileRewind: FileRewindResult | null = null;
    let materialized: IsolatedMaterialization | null = null;
    const isolatedRoots = new Map<string, string>();
    let fileRewindId: string | null = null;

    if (plan.strategy === 'shared') {
      const done = await this.appliedFiles(plan.parent.id, commandId);
      if (done !== undefined) fileRewindId = done;
      else {
        const files = await this.sharedPreview(plan);
        if (files !== null && changesFiles(files)) {
          if (input.confirm !== true) {
            throw new ForkConfirmationRequiredError({
              sessionId: plan.parent.id,
              files: files.files.map((file) => ({ path: file.path, action: file.action, status: file.status })),
            });
          }
          fileRewind = await applySharedFiles({
            ...this.sharedInput(plan),
            seen: preview?.files ?? undefined,
            onCommit: () => ({ entries: [{ sessionId: plan.parent.id, entry: { type: FORK_FILES_ENTRY, data: { commandId, childSessionId: childId } } }] }),
          });
          fileRewindId = fileRewind.rewindId;
        }
      }
    } else {
      const workspace = plan.request.workspace as Extract<ForkRequest['workspace'], { mode: 'isolated' }>;
      const parentWorkspace = sessionWorkspace(plan.parent, this.store.location);
      const targetDir = workspace.dir ?? `${plan.parent.workdir}.forks/${childId}`;
      const build = materializerFor(this.store, plan.parent, workspace.source);
      materialized = await build({
        blobs: this.blobs,
        workspace: parentWorkspace,
        after: plan.after,
        targetDir,
        ...(workspace.durable === undefined ? {} : { durable: workspace.durable }),
        ...(workspace.ignored === undefined ? {} : { ignored: workspace.ignored }),
        ...(onProgress ? { onProgress } : {}),
      });
      // Every other tracked root gets its own copy beside it; untracked roots (data, logs, tmp) stay
      // shared, as they are never checkpointed.
      try {
        for (const root of parentWorkspace.trackedRoots().filter((candidate) => candidate.name !== PRIMARY_ROOT)) {
          const copy = await build({
            blobs: this.blobs,
            workspace: parentWorkspace,
            after: plan.after,
            root: root.name,
            targetDir: `${targetDir}.roots/${root.name}`,
            ...(workspace.durable === undefined ? {} : { durable: workspace.durable }),
            ...(workspace.ignored === undefined ? {} : { ignored: workspace.ignored }),
          });
          isolatedRoots.set(root.name, copy.dir);
        }
      } catch (error) {
        discardWorkTree(materialized.dir);
        for (const dir of isolatedRoots.values()) discardWorkTree(dir);
        throw error;
      }
    }

    const copied = await copiedState(this.store, {
      parentSessionId: plan.parent.id,
      at: plan.at,
      moment: plan.moment,
      sideChat: plan.from === 'side-chat',
      pinned: plan.pinned,
    });
    const workdir = materialized ? materialized.dir : plan.parent.workdir;
    const origin: ForkOriginData = {
      parentSessionId: plan.parent.id,
      from: plan.from,
      at: plan.at?.id ?? null,
      strategy: plan.strategy,
      workdir,
      checkpointIds: plan.after.map((checkpoint) => checkpoint.id),
      fileRewindId,
    };
    const metadata: JsonObject = { fork: { from: plan.from, strategy: plan.strategy, commandId } };
    if (Array.isArray(plan.parent.metadata.roots)) {
      metadata.roots = plan.parent.metadata.roots.map((root) => {
        const name = (root as { name?: unknown }).name;
        const copy = typeof name === 'string' ? isolatedRoots.get(name) : undefined;
        return copy === undefined ? root : { ...(root as JsonObject), dir: copy };
      });
    } else if (plan.parent.metadata.roots !== undefined) {
      metadata.roots = plan.parent.metadata.roots;
    }
    let result;
    try {
      result = await this.store.forkSession({
        parentSessionId: plan.parent.id,
        at: plan.at?.id ?? null,
        kind: plan.kind,
        id: childId,
        workdir,
        metadata,
        commandId,
        ...(input.title === undefined ? {} : { title: input.title }),
        entries: [{ type: FORK_ORIGIN_ENTRY, data: origin }, ...copied.entries],
        messages: forkNotes({
          kind: plan.from,
          parentSessionId: plan.parent.id,
          parentTitle: plan.parent.title,
          at: plan.at?.id ?? null,
          question: input.from === 'side-chat' ? input.question : undefined,
        }),
      });
    } catch (error) {
      if (materialized) discardWorkTree(materialized.dir);
      for (const dir of isolatedRoots.values()) discardWorkTree(dir);
      throw error;
    }
    if (!result.created) {
      // Another process committed the same command first: ours was never used.
      if (materialized) discardWorkTree(materialized.dir);
      for (const dir of isolatedRoots.values()) discardWorkTree(dir);
      return this.replayed(result.session, input.from);
    }
    this.events.emit('session-fork', {
      session: result.session,
      parentSessionId: plan.parent.id,
      from: plan.from,
      strategy: plan.strategy,
      at: origin.at,
      fileRewindId,
      workdir,
    });
    return {
      session: result.session,
      created: true,
      from: plan.from,
      strategy: plan.strategy,
      at: origin.at,
      fileRewind,
      materialized,
      copied: copied.summary,
    };
  }

  /**
   * `forkFrom(turn, name)` on save points (like `rewindToSavePoint`): a fork whose head
   * is the turn's save point — by default its last — titled `name`. Files as for a fork from a message.
   */
  async forkFrom(request: ForkFromRequest): Promise<ForkResult> {
    const input = parseInput(ForkFromRequest, request, 'request');
    const points = (await listSavePoints(this.store, input.sessionId, input.turn)).filter(
      (point) => (input.point === undefined || point.point === input.point) && (input.step === undefined || point.step === input.step),
    );
    const target = points.at(-1);
    if (!target) {
      throw new InvalidArgumentError({
        code: 'SAVE_POINT_NOT_FOUND',
        parameter: 'turn',
        value: input.turn,
        reason: `turn ${input.turn} has no matching save point to fork from.`,
      });
    }
    return this.fork({
      from: 'message',
      sessionId: input.sessionId,
      messageId: target.messageId,
      title: input.name,
      ...(input.commandId === undefined ? {} : { commandId: input.commandId }),
      ...(input.workspace === undefined ? {} : { workspace: input.workspace }),
      ...(input.confirm === undefined ? {} : { confirm: input.confirm }),
    });
  }

  private async plan(request: ForkRequest): Promise<ForkPlan> {
    const parent = await this.store.getSession(request.sessionId);
    const strategy: ForkStrategy = request.workspace?.mode === 'isolated' ? 'isolated' : 'shared';
    if (strategy === 'isolated' && parent.workdir === null) {
      throw new InvalidArgumentError({
        code: 'SESSION_HAS_NO_WORKDIR',
        parameter: 'workspace',
        value: request.workspace,
        reason: `session ${parent.id} has no working directory to isolate.`,
      });
    }
    const base = { request, parent, strategy, pinned: null };
    switch (request.from) {
      case 'checkpoint': {
        await this.requireIdle(parent);
        const checkpoint = await this.resolveCheckpoint(parent, request.checkpointId);
        const anchor = checkpoint.anchorMessageId === null ? null : await this.store.getMessage(checkpoint.anchorMessageId, { parts: 'none' });
        const at = anchor ? (anchor.parentId === null ? null : await this.store.getMessage(anchor.parentId, { parts: 'none' })) : await this.headOf(parent);
        return {
          ...base,
          from: 'checkpoint',
          kind: 'fork',
          at,
          moment: anchor ? anchor.createdAt : Date.now(),
          after: await checkpointsFrom(this.store, checkpoint),
          undoesFiles: true,
        };
      }
      case 'message': {
        await this.requireIdle(parent);
        const at = await this.store.getMessage(request.messageId, { parts: 'none' });
        if (at.treeId !== parent.treeId) {
          throw new InvalidArgumentError({
            code: 'MESSAGE_NOT_IN_TREE',
            parameter: 'messageId',
            value: request.messageId,
            reason: `it is not part of session ${parent.id}'s conversation.`,
          });
        }
        return {
          ...base,
          from: 'message',
          kind: 'fork',
          at,
          moment: await this.momentOf(parent, at),
          after: await checkpointsAfterMessage(this.store, parent, at),
          undoesFiles: true,
        };
      }
      case 'stable': {
        const { message, turn, pinned } = await checkStableBoundary(this.store, parent, request.messageId);
        const after = strategy === 'isolated' ? await checkpointsAfterMessage(this.store, parent, message) : [];
        return { ...base, from: 'stable', kind: 'fork', at: message, moment: turn.endedAt ?? message.createdAt, after, undoesFiles: false, pinned };
      }
      case 'side-chat': {
        const at = await this.sideChatPoint(parent);
        const after = strategy === 'isolated' && at ? await checkpointsAfterMessage(this.store, parent, at) : [];
        return { ...base, from: 'side-chat', kind: 'side_chat', at, moment: Date.now(), after, undoesFiles: false };
      }
    }
  }

  /** Where a side chat starts: the parent's active path; if it is running a turn, only up to that turn's user input. */
  private async sideChatPoint(parent: Session): Promise<Message | null> {
    const running = await this.store.listTurns(parent.id, { status: 'running' });
    for (const turn of [...running].reverse()) {
      const input = await this.store.getMessage(turn.userMessageId, { parts: 'none' });
      const [onPath] = await this.store.history(parent.id, { fromDepth: input.depth, toDepth: input.depth + 1, parts: 'none' });
      if (onPath?.id === input.id) return input;
    }
    return this.headOf(parent);
  }

  /** The moment a message fork stands at: the end of the turn when the message closes it, else the message itself. */
  private async momentOf(parent: Session, at: Message): Promise<number> {
    if (at.id === parent.headMessageId) return Date.now();
    if (at.turnId !== null) {
      const turn = await this.store.getTurn(at.turnId);
      if (turn.boundary?.at(-1) === at.id) return turn.endedAt ?? Date.now();
    }
    return at.createdAt;
  }

  private async headOf(session: Session): Promise<Message | null> {
    return session.headMessageId === null ? null : this.store.getMessage(session.headMessageId, { parts: 'none' });
  }

  private async requireIdle(parent: Session): Promise<void> {
    const [running] = await this.store.listTurns(parent.id, { status: 'running' });
    if (running) throw parentRunningError(parent.id, running.id);
  }

  private async resolveCheckpoint(parent: Session, checkpointId: string | undefined): Promise<Checkpoint> {
    if (checkpointId === undefined || checkpointId === 'latest') {
      const rewound = (await RewindLedger.load(this.store, parent.id)).rewoundCheckpoints();
      const latest =
        (await this.store.listCheckpoints(parent.id, { last: 200 })).filter((checkpoint) => !rewound.has(checkpoint.id)).at(-1) ??
        (await this.store.listCheckpoints(parent.id)).filter((checkpoint) => !rewound.has(checkpoint.id)).at(-1);
      if (!latest) throw new NoWorkspaceCheckpointError({ sessionId: parent.id });
      return latest;
    }
    const checkpoint = await this.store.getCheckpoint(checkpointId);
    if (checkpoint.sessionId !== parent.id) {
      throw new InvalidArgumentError({
        code: 'CHECKPOINT_NOT_IN_SESSION',
        parameter: 'checkpointId',
        value: checkpointId,
        reason: `it was recorded by session ${checkpoint.sessionId}, not ${parent.id}.`,
      });
    }
    return checkpoint;
  }

  private sharedInput(plan: ForkPlan) {
    return {
      store: this.store,
      blobs: this.blobs,
      parent: plan.parent,
      checkpoints: plan.after,
      targetMessageId: plan.at?.id ?? plan.parent.id,
      includeShellChanges: plan.request.includeShellChanges ?? true,
      resolutions: (plan.request.resolutions ?? {}) as Record<string, ConflictResolution>,
    };
  }

  private async sharedPreview(plan: ForkPlan): Promise<FileRewindPreview | null> {
    if (plan.strategy !== 'shared' || !plan.undoesFiles || plan.after.length === 0 || plan.parent.workdir === null) return null;
    return (await previewSharedFiles(this.sharedInput(plan))).preview;
  }

  /** The file rewind an earlier attempt of this command already applied to the parent (undefined: none). */
  private async appliedFiles(parentId: string, commandId: string): Promise<string | null | undefined> {
    const entries = await this.store.listEntries(parentId, { type: FORK_FILES_ENTRY });
    const entry = entries.find((candidate) => candidate.data.commandId === commandId);
    if (!entry) return undefined;
    const rewinds = await this.store.listEntries(parentId, { type: 'file-rewind' });
    return (rewinds.find((rewind) => rewind.seq === entry.seq - 1)?.data.rewindId as string | undefined) ?? null;
  }

  private async replay(commandId: string, from: ForkKind): Promise<ForkResult | null> {
    const fact = await this.store.getCommandFact(commandId);
    if (!fact || fact.kind !== FORK_COMMAND_KIND) return null;
    const sessionId = (fact.result as { sessionId?: string } | null)?.sessionId;
    const session = sessionId === undefined ? null : await this.store.findSession(sessionId);
    return session ? this.replayed(session, from) : null;
  }

  private async replayed(session: Session, from: ForkKind): Promise<ForkResult> {
    const [origin] = await this.store.listEntries(session.id, { type: FORK_ORIGIN_ENTRY, last: 1 });
    const data = origin?.data as ForkOriginData | undefined;
    return {
      session,
      created: false,
      from: data?.from ?? from,
      strategy: data?.strategy ?? 'shared',
      at: data?.at ?? session.forkedFromMessageId,
      fileRewind: null,
      materialized: null,
      copied: null,
    };
  }
}
