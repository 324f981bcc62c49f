import { openCaptureContext, sessionWorkspace, type CaptureContext } from '../checkpoint/index.js';
import type { Waypoint } from '../engine/index.js';
import type { EffectPolicyOptions } from '../fork/index.js';
import type { EffectsLedger } from '../history/index.js';
import type { Checkpoint, EventBus, Session } from '../model/index.js';
import type { Workspace } from '../workspace/index.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { CaptureLocks } from './capture-lock.js';
import type { LanguageModelV3 } from './models/language-model-v3.js';
import type { RuntimeEvents, TurnScope } from './runtime-events.js';
import type { ApproveEffect } from './tool-executor.js';
import type { ToolContext } from './tools/tool.js';
import type { AnyRuntimeTool } from './tools/tool.js';

export interface RuntimeSettings {
  maxSteps: number;
  bashTimeoutMs: number;
  maxOutputChars: number;
  maxRetries: number;
  /** Streamed characters buffered before the streaming message is written and the deltas emitted. */
  streamFlushChars: number;
}

/** What the turn loop and the subagent loop share (built once by `createRuntime`). */
export interface RuntimeCore {
  waypoint: Waypoint;
  model: LanguageModelV3;
  system: string;
  tools: ReadonlyMap<string, AnyRuntimeTool>;
  events: EventBus<RuntimeEvents>;
  background: BackgroundTasks;
  /** One capture at a time per session (tools, background task scans). */
  locks: CaptureLocks;
  ledger: EffectsLedger;
  settings: RuntimeSettings;
  approveEffect?: ApproveEffect | undefined;
  effectPolicy?: EffectPolicyOptions | undefined;
}

/** What running a tool call needs of the core (the tool host runs tools with no model). */
export type ToolCore = Pick<RuntimeCore, 'waypoint' | 'events' | 'background' | 'locks' | 'settings'>;

/** Per-turn state shared by the turn and any subagent it starts: one capture context, one workspace. */
export interface TurnState {
  session: Session;
  turnId: string;
  signal: AbortSignal;
  capture(): Promise<CaptureContext>;
  workspace(): Workspace;
}

export function openTurnState(core: Pick<RuntimeCore, 'waypoint'>, session: Session, turnId: string, signal: AbortSignal): TurnState {
  let capture: Promise<CaptureContext> | null = null;
  let workspace: Workspace | null = null;
  const { store, blobs } = core.waypoint;
  return {
    session,
    turnId,
    signal,
    workspace: () => (workspace ??= sessionWorkspace(session, store.location)),
    capture: () => {
      if (!capture) {
        const pending = Promise.resolve().then(() =>
          openCaptureContext({ store, blobs, sessionId: session.id, turnId, workspace: (workspace ??= sessionWorkspace(session, store.location)) }),
        );
        capture = pending;
        pending.catch(() => {
          capture = null;
        });
      }
      return capture;
    },
  };
}

/** The context a tool call runs with. */
export function toolContext(
  core: ToolCore,
  state: TurnState,
  scope: TurnScope,
  toolCallId: string,
  collected: string[],
  runSubagent?: ToolContext['runSubagent'],
): ToolContext {
  return {
    store: core.waypoint.store,
    session: state.session,
    sessionId: state.session.id,
    turnId: state.turnId,
    toolCallId,
    get workspace() {
      return state.workspace();
    },
    capture: () => state.capture(),
    recordCheckpoints: (checkpoints: readonly Checkpoint[]) => {
      for (const checkpoint of checkpoints) {
        collected.push(checkpoint.id);
        core.events.emit('checkpoint-create', { ...scope, checkpoint });
      }
    },
    signal: state.signal,
    startBackground: (command, options) =>
      core.background.start({
        sessionId: state.session.id,
        turnId: state.turnId,
        branchGeneration: state.session.branchGeneration,
        command,
        cwd: state.workspace().primaryRoot.dir,
        protectedPaths: state.workspace().protectedPathsInRoots(),
        toolCallId,
        capture: () => state.capture(),
        ...(options.description === undefined ? {} : { description: options.description }),
      }),
    ...(runSubagent ? { runSubagent } : {}),
    exclusive: (fn) => core.locks.run(state.session.id, fn),
    reportScanProgress: (progress) => core.events.emit('scan-progress', { ...scope, toolCallId, taskId: null, ...progress }),
    settings: { bashTimeoutMs: core.settings.bashTimeoutMs, maxOutputChars: core.settings.maxOutputChars },
  };
}
