import { markScanBaseline, openCaptureContext } from '../checkpoint/index.js';
import type { Waypoint } from '../engine/index.js';
import { MODEL_CHOICE_ENTRY, type EffectPolicyOptions, type ForkFromRequest, type ForkPreview } from '../fork/index.js';
import { EffectsLedger } from '../history/index.js';
import { EventBus, InvalidArgumentError, type JsonObject, type Session } from '../model/index.js';
import {
  applyRewind,
  edit,
  forkFromSavePoint,
  forkSession,
  previewDirectRewind,
  previewFork,
  previewRedo,
  previewRewind,
  redo,
  requireIdle,
  retry,
  rewind,
  rewindStatus,
  rewindToSavePoint,
  type ApplyRewindRequest,
  type DirectRewindPreviewResult,
  type EditRequest,
  type ForkSessionRequest,
  type ForkSessionResult,
  type OperationContext,
  type PreviewRedoRequest,
  type PreviewRewindRequest,
  type RedoPreview,
  type RedoRequest,
  type RedoResult,
  type RetryRequest,
  type RetryResult,
  type RewindRequest,
  type RewindResult,
  type RewindStatus,
  type SavePointRewindRequest,
} from '../operations/index.js';
import { repairDanglingToolCalls, type DanglingRepair, type EditResult, type FileRewindPreview, type SavePoint } from '../rewind/index.js';
import { BackgroundTasks } from './background-tasks.js';
import { captureLocksFor } from './capture-lock.js';
import type { LanguageModelV3 } from './models/language-model-v3.js';
import { resolveModel } from './models/resolve-model.js';
import type { RuntimeCore, RuntimeSettings } from './runtime-core.js';
import type { RuntimeEvents } from './runtime-events.js';
import type { ApproveEffect } from './tool-executor.js';
import { defaultTools } from './tools/index.js';
import type { AnyRuntimeTool } from './tools/tool.js';
import { subagentLink } from './subagent-loop.js';
import { runTurnLoop, type TurnResult } from './turn-loop.js';
import { compactSession, needsCompaction, type AutoCompactOptions, type CompactionResult } from './compaction.js';

export const DEFAULT_SYSTEM_PROMPT = [
  "You are a coding agent working in the user's workspace through tools: read, write, edit (exact string replace), bash, glob, grep, and subagent.",
  'Paths are relative to the workspace root. Read a file before editing it. Keep changes focused on what was asked, then reply briefly with what you did.',
  'Every file change you make is checkpointed, so the person can rewind it.',
].join(' ');

export interface RuntimeOptions {
  waypoint: Waypoint;
  /** A model string (`openai-compatible:<model>@<url>`, `anthropic:<model>`, `scripted:<file>`) or an AI SDK model object. */
  model: string | LanguageModelV3;
  system?: string;
  /** The tools the model may call (default: read, write, edit, bash, glob, grep, subagent). */
  tools?: AnyRuntimeTool[];
  /** Decides external tool calls that need approval (forks, repeats); without it they are not run. */
  approveEffect?: ApproveEffect;
  effectPolicy?: EffectPolicyOptions;
  /** Environment for model keys and base URLs (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * Compact the conversation before a turn when it nears the model's context window. Default: off
   * for the scripted model, else `{ contextTokens: $WAYPOINT_CONTEXT_TOKENS or 128000, threshold: 0.8 }`.
   */
  autoCompact?: AutoCompactOptions | false;
  /** Model calls per turn before it stops (default 50). */
  maxSteps?: number;
  /** Foreground bash timeout (default 120 s). */
  bashTimeoutMs?: number;
  /** Characters of command output kept (default 30,000). */
  maxOutputChars?: number;
  /** Retries of a failed model call (default 2). */
  maxRetries?: number;
  streamFlushChars?: number;
  /**
   * Compress blobs stored raw first (a first scan stores a whole workspace raw) while the runtime is
   * idle: after a turn ended (after `turn-end`, off its critical path) or a background task's
   * capture, in passes of at most `budgetMs` (default 500) and `maxBytes` (default 64 MiB), repeated
   * while staged blobs remain and no turn or capture runs. `false` turns it off.
   */
  idleCompression?: false | { budgetMs?: number; maxBytes?: number };
  /**
   * Let the AI SDK print its warnings (unknown model limits …) to the console. Default false: a
   * chat on a terminal should not be interleaved with them. Sets the SDK's global switch only when
   * nobody set it.
   */
  sdkWarnings?: boolean;
}

export interface RunTurnOptions {
  signal?: AbortSignal;
}

/**
 * The agent runtime over an opened Waypoint: sessions, the turn loop, and the engine's rewind, edit,
 * retry and fork operations wired to it (edit and retry restart the turn with `runTurn`). One turn
 * runs per session at a time; rewinds, edits, retries and forks that need the session idle refuse
 * with `TURN_RUNNING` while one runs (a stable fork and a side chat do not need it idle).
 *
 * @example
 * const waypoint = await openWaypoint({ path: '/tmp/w/store/w.db' });
 * const runtime = createRuntime({ waypoint, model: 'scripted:./demo-script.json' });
 * runtime.events.on('message-part', (event) => process.stdout.write(event.delta));
 * const session = await runtime.startSession({ workdir: '/tmp/w/project' });
 * const result = await runtime.runTurn(session.id, 'Fix the parser', { signal });
 */
export class AgentRuntime {
  readonly events = new EventBus<RuntimeEvents>();
  readonly model: LanguageModelV3;
  readonly modelLabel: string;
  /** What a session records of the model: its provider and id, and the string that chooses it again (null for a model object given directly). */
  private readonly modelChoice: JsonObject;
  private readonly core: RuntimeCore;
  /** What the operations run with: the engine, this runtime's events, and which sessions run a turn. */
  private readonly operations: OperationContext;
  private readonly running = new Map<string, { turn: Promise<TurnResult>; controller: AbortController }>();
  private readonly compression: { budgetMs: number; maxBytes: number } | null;
  private idleWork: Promise<void> | null = null;
  /** Asked for while a pass was under way: look again once it is over. */
  private idleAgain: string | null = null;
  private closing = false;

  private readonly autoCompaction: AutoCompactOptions | false;

  constructor(private readonly options: RuntimeOptions) {
    const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
    if (global.AI_SDK_LOG_WARNINGS === undefined) global.AI_SDK_LOG_WARNINGS = options.sdkWarnings ?? false;
    if (typeof options.model === 'string') {
      const resolved = resolveModel(options.model, options.env === undefined ? {} : { env: options.env });
      this.model = resolved.model;
      this.modelLabel = resolved.label;
      this.modelChoice = { model: resolved.label, provider: resolved.provider, modelId: resolved.modelId, spec: resolved.spec };
    } else {
      this.model = options.model;
      this.modelLabel = `${options.model.provider}:${options.model.modelId}`;
      this.modelChoice = { model: this.modelLabel, provider: options.model.provider, modelId: options.model.modelId, spec: null };
    }
    this.autoCompaction = autoCompactionFor(options, this.model);
    const tools = options.tools ?? defaultTools();
    const names = new Set<string>();
    for (const tool of tools) {
      if (names.has(tool.name)) throw new InvalidArgumentError({ parameter: 'tools', value: tool.name, reason: 'tool names must be unique.' });
      names.add(tool.name);
    }
    const settings: RuntimeSettings = {
      maxSteps: options.maxSteps ?? 50,
      bashTimeoutMs: options.bashTimeoutMs ?? 120_000,
      maxOutputChars: options.maxOutputChars ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      streamFlushChars: options.streamFlushChars ?? 64,
    };
    const waypoint = options.waypoint;
    this.compression =
      options.idleCompression === false
        ? null
        : { budgetMs: options.idleCompression?.budgetMs ?? 500, maxBytes: options.idleCompression?.maxBytes ?? 64 * 1024 * 1024 };
    // Shared with checkpointTools wrappers and other runtimes over this Waypoint.
    const locks = captureLocksFor(waypoint);
    this.operations = { waypoint, events: this.events, isRunning: (sessionId) => this.running.has(sessionId) };
    this.core = {
      waypoint,
      model: this.model,
      system: options.system ?? DEFAULT_SYSTEM_PROMPT,
      tools: new Map(tools.map((tool) => [tool.name, tool])),
      events: this.events,
      ledger: new EffectsLedger(waypoint.store),
      settings,
      approveEffect: options.approveEffect,
      effectPolicy: options.effectPolicy,
      locks,
      background: new BackgroundTasks({
        store: waypoint.store,
        tasks: waypoint.tasks,
        events: this.events,
        locks,
        maxOutputChars: settings.maxOutputChars,
        runningTurn: (sessionId) => (this.running.has(sessionId) ? sessionId : null),
        onCaptured: (sessionId) => this.scheduleIdleCompression(sessionId),
      }),
    };
  }

  /**
   * A new main session working in `workdir` (on a store shared by several machines, its files are
   * scanned into the store at once); the model choice (provider, model id, and the model
   * string that chooses it again) is recorded as an entry (forks copy it), so resuming needs no model.
   */
  async startSession(input: { workdir: string; title?: string; metadata?: JsonObject }): Promise<Session> {
    const { waypoint } = this.options;
    const session = await waypoint.history.createSession(input);
    await waypoint.store.appendEntry(session.id, { type: MODEL_CHOICE_ENTRY, data: this.modelChoice });
    // On a store several machines share, the starting files go into the store now, so a fork on a
    // machine that cannot see this directory rebuilds files no tool call has touched yet.
    if (waypoint.store.capabilities.multiHost)
      await markScanBaseline(await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: null }));
    return session;
  }

  /**
   * Continue a session after a restart or crash: tool calls left without a result get a synthetic
   * "interrupted" one, streaming messages are finished as interrupted and running turns marked
   * interrupted (`repairDanglingToolCalls`), so the next turn starts from a valid history. The
   * transcripts of subagents the crash interrupted (child sessions) are repaired the same way.
   */
  async resumeSession(sessionId: string): Promise<{ session: Session; repair: DanglingRepair }> {
    this.requireIdle(sessionId, 'resume');
    const { store } = this.options.waypoint;
    const repair = await repairDanglingToolCalls(store, sessionId);
    for (const child of await store.listSessions({ parentSessionId: sessionId })) {
      if (subagentLink(child) && (await store.listTurns(child.id, { status: 'running' })).length > 0) await repairDanglingToolCalls(store, child.id);
    }
    // Resumed with another model: that one is what the session runs with from now on.
    const [recorded] = await store.listEntries(sessionId, { type: MODEL_CHOICE_ENTRY, last: 1 });
    if (recorded?.data.model !== this.modelChoice.model) await store.appendEntry(sessionId, { type: MODEL_CHOICE_ENTRY, data: this.modelChoice });
    return { session: await store.getSession(sessionId), repair };
  }

  /** Run one turn; resolves when it ended (complete or interrupted), rejects with the typed error of a failed one. */
  async runTurn(sessionId: string, text: string, options: RunTurnOptions = {}): Promise<TurnResult> {
    if (typeof text !== 'string' || text.trim() === '')
      throw new InvalidArgumentError({ parameter: 'text', value: text, reason: 'type a request; an empty message starts no turn.' });
    this.requireIdle(sessionId, 'start a turn');
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    const turn = (async () => {
      await this.autoCompact(sessionId, signal);
      return runTurnLoop(this.core, sessionId, text, signal);
    })();
    this.running.set(sessionId, { turn, controller });
    try {
      return await turn;
    } finally {
      this.running.delete(sessionId);
      // A task that ended while the turn was finishing was queued for it: deliver it now.
      await this.core.background.flush(sessionId, null);
      this.scheduleIdleCompression(sessionId);
    }
  }

  /**
   * `/compact`: the model summarizes the conversation and the summary replaces it in what the model
   * is sent from now on (the person still sees everything; a rewind to before it undoes it).
   */
  async compact(sessionId: string, options: { instructions?: string; signal?: AbortSignal } = {}): Promise<CompactionResult> {
    this.requireIdle(sessionId, 'compact');
    const result = await compactSession(this.core, sessionId, {
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      signal: options.signal ?? new AbortController().signal,
      trigger: 'manual',
    });
    this.events.emit('conversation-compact', { sessionId, result, error: null });
    return result;
  }

  /** Before a turn: compact when the conversation is near the model's context window (a failure is reported, and the turn goes on). */
  private async autoCompact(sessionId: string, signal: AbortSignal): Promise<void> {
    if (!this.autoCompaction) return;
    const path = await this.options.waypoint.store.history(sessionId);
    if (!needsCompaction(path, this.autoCompaction)) return;
    try {
      const result = await compactSession(this.core, sessionId, { signal, trigger: 'auto' });
      this.events.emit('conversation-compact', { sessionId, result, error: null });
    } catch (error) {
      if (signal.aborted) return;
      const typed = error as { code?: string; message?: string };
      this.events.emit('conversation-compact', {
        sessionId,
        result: null,
        error: { code: typed.code ?? 'COMPACTION_FAILED', message: typed.message ?? String(error) },
      });
    }
  }

  /** Stop the session's running turn (as Ctrl-C does); resolves when it has ended. */
  async interrupt(sessionId: string): Promise<TurnResult | null> {
    const running = this.running.get(sessionId);
    if (!running) return null;
    running.controller.abort();
    return running.turn.catch(() => null);
  }

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  /** `/rewind` in any direct form (see `rewind` in the operations); stops the cut turns' background tasks. */
  rewind(request: RewindRequest): Promise<RewindResult> {
    return rewind(this.operations, request);
  }

  /** What `rewind` with the same request would do (files changed since the agent are listed). Changes nothing. */
  previewDirectRewind(request: RewindRequest): Promise<DirectRewindPreviewResult> {
    return previewDirectRewind(this.operations, request);
  }

  /** What a checked rewind would do to the files (by message, turn, or the last turn with changes). Changes nothing. */
  previewRewind(request: PreviewRewindRequest): Promise<FileRewindPreview> {
    return previewRewind(this.operations, request);
  }

  /** Applies a checked preview (`scope: 'both'` also moves the conversation, in the same commit). */
  applyRewind(request: ApplyRewindRequest): Promise<RewindResult> {
    return applyRewind(this.operations, request);
  }

  /** Back to a turn's save point A or B (default: its last). */
  rewindToSavePoint(request: SavePointRewindRequest): Promise<SavePoint> {
    return rewindToSavePoint(this.operations, request);
  }

  /** Undo a rewind: a file rewind by id, else the last conversation rewind (a session id alone means that). */
  redo(request: RedoRequest | string): Promise<RedoResult> {
    return redo(this.operations, typeof request === 'string' ? { sessionId: request } : request);
  }

  /** What redo of a file rewind would do, file by file (merge where it applies). Changes nothing. */
  previewRedo(request: PreviewRedoRequest): Promise<RedoPreview> {
    return previewRedo(this.operations, request);
  }

  /** Where a session stands for rewinding: the latest checkpoint, the inputs to rewind to, what can be redone. */
  rewindStatus(sessionId: string): Promise<RewindStatus> {
    return rewindStatus(this.operations, { sessionId });
  }

  /** `/edit`: replace the last input and run the turn again (`workspace: 'rewind'` undoes its files first). */
  edit(request: EditRequest, options: RunTurnOptions = {}): Promise<EditResult<TurnResult>> {
    return edit(this.operations, request, (text, session) => this.runTurn(session.id, text, options));
  }

  /** `/retry`: run the last turn again with the same input. */
  retry(request: RetryRequest, options: RunTurnOptions = {}): Promise<RetryResult<TurnResult>> {
    return retry(this.operations, request, (text, session) => this.runTurn(session.id, text, options));
  }

  /** What a fork would do (a shared fork that changes the parent's files `requiresConfirmation`). */
  previewFork(request: ForkSessionRequest): Promise<ForkPreview> {
    return previewFork(this.operations, request);
  }

  /** `/fork`: any of the four forks, with the confirmation policy (see `forkSession`). */
  fork(request: ForkSessionRequest & { onProgress?: (done: number, total: number) => void }): Promise<ForkSessionResult> {
    const { onProgress, ...rest } = request;
    return forkSession(this.operations, rest, onProgress ? { onProgress } : {});
  }

  /** A fork at a turn's save point, titled `name`. */
  forkFrom(request: ForkFromRequest): Promise<ForkSessionResult> {
    return forkFromSavePoint(this.operations, request);
  }

  /** `/side <question>`: a side chat forked at the latest input, its first turn asking the question. */
  async side(sessionId: string, question: string, options: RunTurnOptions = {}): Promise<{ session: Session; turn: TurnResult }> {
    if (typeof question !== 'string' || question.trim() === '')
      throw new InvalidArgumentError({ parameter: 'question', value: question, reason: 'ask a question: /side <question>.' });
    const result = await this.fork({ from: 'side-chat', sessionId });
    const turn = await this.runTurn(result.session.id, question, options);
    return { session: await this.options.waypoint.store.getSession(result.session.id), turn };
  }

  /** Wait for every background task to end and its result to be handled. */
  settleBackground(): Promise<void> {
    return this.core.background.settled();
  }

  /** Wait until the idle compression passes started so far are over. */
  async settleIdle(): Promise<void> {
    while (this.idleWork) await this.idleWork;
  }

  /** Interrupt running turns, kill background tasks (their results are discarded), and let an idle compression pass finish. */
  async close(): Promise<void> {
    this.closing = true;
    this.core.background.killAll();
    await Promise.all([...this.running.keys()].map((sessionId) => this.interrupt(sessionId)));
    await this.core.background.settled();
    await this.settleIdle();
  }

  /**
   * Starts compressing staged blobs unless a pass is under way, it is off, or the runtime closes.
   * Not awaited by anyone on a turn's path: it begins once the current callbacks have returned.
   */
  private scheduleIdleCompression(sessionId: string): void {
    if (this.compression === null || this.closing) return;
    if (this.idleWork) {
      this.idleAgain = sessionId;
      return;
    }
    this.idleWork = this.compressWhileIdle(sessionId, this.compression).finally(() => {
      this.idleWork = null;
      const again = this.idleAgain;
      this.idleAgain = null;
      if (again !== null) this.scheduleIdleCompression(again);
    });
  }

  /**
   * Bounded passes of `BlobStore.compress` while nothing runs in this runtime: no turn and no
   * capture (a background task's end scan) in any session. A turn that starts during a pass runs
   * alongside it for at most the pass's budget (plus one 8 MiB chunk): the blob layer never touches
   * a staging pack a stream is still writing, re-encodes by repointing rows in a transaction (a
   * read racing it is retried), so this is safe; no new pass starts until the runtime is idle
   * again (the next turn's end schedules it).
   */
  private async compressWhileIdle(sessionId: string, limits: { budgetMs: number; maxBytes: number }): Promise<void> {
    const { blobs } = this.options.waypoint;
    const idle = () => !this.closing && this.running.size === 0 && !this.core.locks.busy;
    await new Promise((resolve) => setImmediate(resolve));
    while (idle()) {
      const started = performance.now();
      try {
        if ((await blobs.compressionBacklog()).blobs === 0 || !idle()) return;
        const report = await blobs.compress(limits);
        this.events.emit('blobs-compress', {
          sessionId,
          blobsMoved: report.blobsMoved,
          bytesIn: report.bytesIn,
          bytesOut: report.bytesOut,
          pendingBlobs: report.pendingBlobs,
          pendingBytes: report.pendingBytes,
          durationMs: Math.round(performance.now() - started),
          error: null,
        });
        // Nothing more it may touch now (the rest is in packs a live writer still appends to).
        if (report.pendingBlobs === 0 || report.blobsMoved === 0) return;
      } catch (error) {
        this.events.emit('blobs-compress', {
          sessionId,
          blobsMoved: 0,
          bytesIn: 0,
          bytesOut: 0,
          pendingBlobs: 0,
          pendingBytes: 0,
          durationMs: Math.round(performance.now() - started),
          error: (error as Error).message,
        });
        return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private requireIdle(sessionId: string, action: string): void {
    requireIdle(this.operations, sessionId, action);
  }
}

/** The default context window when a model string names none (tokens). */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

/**
 * Automatic compaction: as configured; else off for the scripted model (a script plays only the
 * steps it was written with) and on for providers, with `$WAYPOINT_CONTEXT_TOKENS` or 128k tokens.
 */
function autoCompactionFor(options: RuntimeOptions, model: LanguageModelV3): AutoCompactOptions | false {
  if (options.autoCompact !== undefined) return options.autoCompact;
  if (model.provider === 'scripted') return false;
  const env = options.env ?? process.env;
  const configured = Number(env.WAYPOINT_CONTEXT_TOKENS);
  return { contextTokens: Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_CONTEXT_TOKENS };
}

/**
 * Create the runtime (resolves the model now: a missing key or base URL is reported before any turn).
 *
 * @example
 * const runtime = createRuntime({ waypoint: await openWaypoint(), model: 'openai-compatible:qwen2.5-coder@http://localhost:11434/v1' });
 */
export function createRuntime(options: RuntimeOptions): AgentRuntime {
  return new AgentRuntime(options);
}
