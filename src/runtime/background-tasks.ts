import { randomBytes } from 'node:crypto';
import { displayPath, type CaptureContext, type ExecScanProgress } from '../checkpoint/index.js';
import type { Checkpoint, EventBus, JsonObject, JsonValue, PartContent } from '../model/index.js';
import type { TaskRegistry } from '../rewind/index.js';
import type { Store } from '../store/index.js';
import { beginTaskCapture, endTaskCapture, type TaskCaptureResult, type TaskCaptureStart } from './background-capture.js';
import type { CaptureLocks } from './capture-lock.js';
import type { RuntimeEvents } from './runtime-events.js';
import { shellInvocation } from './tools/protected-shell.js';
import { collectOutput, killGroup, spawnShell } from './tools/run-command.js';

/** A finished task's result waiting for the running turn's next model call. */
export interface QueuedNotification {
  parts: PartContent[];
  metadata: JsonObject;
  event: Omit<RuntimeEvents['task-end'], 'messageId'>;
}

export interface BackgroundHost {
  store: Store;
  tasks: TaskRegistry;
  events: EventBus<RuntimeEvents>;
  locks: CaptureLocks;
  maxOutputChars: number;
  /** The turn running in the session in this runtime, if any. */
  runningTurn(sessionId: string): string | null;
  /** Called after a task's capture wrote something (the runtime may compress at idle). */
  onCaptured?(sessionId: string): void;
}

export interface BackgroundStartInput {
  sessionId: string;
  turnId: string;
  branchGeneration: number;
  command: string;
  cwd: string;
  /** The store's paths inside the workspace: read-only for the task (see `shellInvocation`). */
  protectedPaths?: readonly string[];
  description?: string;
  /** The bash call that started the task: its checkpoints carry this call id. */
  toolCallId: string;
  /** The turn's capture context; null (or a failure) leaves the task uncaptured and its turn partially protected. */
  capture: (() => Promise<CaptureContext>) | null;
}

/** How long a stop waits for a task's capture that is already writing, before giving up on it (it then records nothing). */
const STOP_WAITS_FOR_CAPTURE_MS = 10_000;

/**
 * Shell commands started with `bash { background: true }`. Each is a child process in its own
 * process group, registered in the engine's {@link TaskRegistry} with its turn and the session's
 * branch generation, so a conversation rewind that cuts the turn stops it first.
 *
 * Capture: the workspace is scanned when the task starts (under the session's capture lock, as
 * the bash call that starts it), and again when it ends; what it changed becomes `exec` checkpoints
 * of the turn that started it (see `endTaskCapture` for how a change is attributed once when tools
 * ran meanwhile), then its result is delivered as a `task_notification` message — right away when
 * the session is idle, else just before the running turn's next model call. A task stopped by a
 * rewind (or by the runtime closing), or whose session's branch generation moved on, records
 * nothing and is discarded (`task-end` with `discarded`): its changes are not written into a branch
 * that is no longer active, and the session's scan state is left as it was, so they stay on disk
 * as changes the next scan sees and nobody recorded; its turn is marked partially protected.
 */
export class BackgroundTasks {
  private readonly queues = new Map<string, QueuedNotification[]>();
  private readonly live = new Map<string, { done: Promise<void>; kill: () => void }>();

  constructor(private readonly host: BackgroundHost) {}

  /** Starts a task; call it under the session's capture lock (the bash tool call holds it). */
  async start(input: BackgroundStartInput): Promise<{ taskId: string; pid: number | null }> {
    const { store, tasks, events, locks } = this.host;
    // Refused (store in the workspace, no way to make it read-only) before anything is scanned or recorded.
    const shell = shellInvocation(input.command, input.protectedPaths ?? []);
    const taskId = `task_${randomBytes(6).toString('hex')}`;
    const scope = { sessionId: input.sessionId, turnId: input.turnId, toolCallId: input.toolCallId, taskId };
    const progress = (scan: ExecScanProgress['scan']) => (report: ExecScanProgress) => events.emit('scan-progress', { ...scope, ...report, scan });
    let captureStart: TaskCaptureStart | null = null;
    let captureError: string | null = null;
    if (input.capture) {
      try {
        captureStart = await beginTaskCapture(await input.capture(), {
          toolName: 'bash',
          toolCallId: input.toolCallId,
          command: input.command,
          onProgress: progress('before'),
        });
      } catch (error) {
        captureError = (error as Error).message;
      }
    } else {
      captureError = 'no capture context';
    }
    if (captureError !== null) captureError = `the scan before it started failed: ${captureError}`;
    await this.updateTaskEntry(
      input.turnId,
      taskId,
      {
        taskId,
        command: input.command,
        toolCallId: input.toolCallId,
        status: 'running',
        ...(captureError === null ? {} : { reason: `its file changes will not be checkpointed: ${captureError}` }),
      },
      captureError !== null,
    );
    const child = spawnShell(shell, input.cwd);
    const output = collectOutput(child, this.host.maxOutputChars);
    let stopped = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('error', () => resolve({ code: null, signal: null }));
      child.on('close', (code, signal) => resolve({ code, signal }));
    });
    const accepts = async (): Promise<'stopped' | 'stale-branch' | null> => {
      if (stopped) return 'stopped';
      const session = await store.findSession(input.sessionId);
      const current = session?.branchGeneration ?? Number.POSITIVE_INFINITY;
      if (!tasks.acceptsResult({ sessionId: input.sessionId, branchGeneration: input.branchGeneration }) || current > input.branchGeneration)
        return 'stale-branch';
      return stopped ? 'stopped' : null;
    };
    let handled: Promise<void> = Promise.resolve();
    const unregister = tasks.register({
      id: taskId,
      sessionId: input.sessionId,
      turnId: input.turnId,
      branchGeneration: input.branchGeneration,
      ...(input.description === undefined ? {} : { description: input.description }),
      stop: async () => {
        stopped = true;
        killGroup(child, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 2000);
        await exited;
        clearTimeout(timer);
        // A capture already writing finishes first (its checkpoints then belong to the turn before the
        // rewind cuts it); one that has not written yet sees `stopped` and records nothing.
        let waited: NodeJS.Timeout | undefined;
        await Promise.race([handled, new Promise<void>((resolve) => (waited = setTimeout(resolve, STOP_WAITS_FOR_CAPTURE_MS)))]);
        clearTimeout(waited);
        return true;
      },
    });
    handled = exited.then(async ({ code }) => {
      try {
        const base = { sessionId: input.sessionId, turnId: input.turnId, taskId, exitCode: code };
        const outcome = await locks.run(input.sessionId, async () => {
          let discarded = await accepts();
          let result: TaskCaptureResult | null = null;
          let failure: string | null = captureError;
          if (discarded === null && captureStart) {
            try {
              result = await endTaskCapture(captureStart, {
                stillWanted: async () => {
                  discarded = await accepts();
                  return discarded === null;
                },
                onProgress: progress('after'),
              });
            } catch (error) {
              failure = `its capture failed: ${(error as Error).message}`;
            }
          }
          const entry: JsonObject = { taskId, command: input.command, toolCallId: input.toolCallId, exitCode: code };
          if (discarded !== null) {
            entry.status = 'discarded';
            entry.reason =
              discarded === 'stopped'
                ? 'stopped before it finished; the changes it made were not checkpointed'
                : 'the session was rewound past its turn; the changes it made were not checkpointed';
          } else {
            entry.status = failure === null ? 'captured' : 'not-captured';
            entry.checkpoints = result?.checkpoints.length ?? 0;
            if (failure !== null) entry.reason = failure;
          }
          await this.updateTaskEntry(input.turnId, taskId, entry, discarded !== null || failure !== null).catch(() => undefined);
          return { discarded, checkpoints: result?.checkpoints ?? [], failure };
        });
        if (outcome.discarded !== null) {
          events.emit('task-end', { ...base, discarded: true, reason: outcome.discarded, checkpointIds: [], captureError: null, messageId: null });
          return;
        }
        const { checkpoints, failure } = outcome;
        for (const checkpoint of checkpoints) events.emit('checkpoint-create', { sessionId: input.sessionId, turnId: input.turnId, checkpoint, taskId });
        if (checkpoints.length > 0) this.host.onCaptured?.(input.sessionId);
        const text = `Background task ${taskId} (\`${input.command}\`) finished with ${code === null ? 'no exit code (killed)' : `exit code ${code}`}.${filesLine(checkpoints, failure)}\n${output()}`;
        const notification: QueuedNotification = {
          parts: [{ type: 'text', text }],
          metadata: {
            task: {
              taskId,
              command: input.command,
              exitCode: code,
              turnId: input.turnId,
              checkpointIds: checkpoints.map((checkpoint) => checkpoint.id),
            } as JsonValue,
          },
          event: { ...base, discarded: false, reason: 'finished', checkpointIds: checkpoints.map((checkpoint) => checkpoint.id), captureError: failure },
        };
        if (this.host.runningTurn(input.sessionId) !== null) this.queue(input.sessionId, notification);
        else await this.deliver(input.sessionId, null, [notification]);
      } finally {
        unregister();
      }
    });
    this.live.set(taskId, {
      done: handled.finally(() => this.live.delete(taskId)),
      kill: () => {
        stopped = true;
        killGroup(child, 'SIGKILL');
      },
    });
    events.emit('task-start', {
      sessionId: input.sessionId,
      turnId: input.turnId,
      taskId,
      command: input.command,
      branchGeneration: input.branchGeneration,
      toolCallId: input.toolCallId,
      captured: captureStart !== null,
    });
    return { taskId, pid: child.pid ?? null };
  }

  /** Replaces (or adds) the task's entry in its turn's `backgroundTasks`; `unprotected` also marks the turn partially protected. */
  private async updateTaskEntry(turnId: string, taskId: string, entry: JsonObject, unprotected: boolean): Promise<void> {
    const turn = await this.host.store.getTurn(turnId);
    const previous = Array.isArray(turn.metadata.backgroundTasks) ? (turn.metadata.backgroundTasks as JsonValue[]) : [];
    const others = previous.filter((item) => !(item && typeof item === 'object' && !Array.isArray(item) && item.taskId === taskId));
    await this.host.store.updateTurn(turnId, { metadata: { backgroundTasks: [...others, entry], ...(unprotected ? { partiallyProtected: true } : {}) } });
  }

  private queue(sessionId: string, notification: QueuedNotification): void {
    const list = this.queues.get(sessionId) ?? [];
    list.push(notification);
    this.queues.set(sessionId, list);
  }

  /** Append the session's queued results (the turn loop calls this before each model call, and with null after the turn ended). */
  async flush(sessionId: string, turnId: string | null): Promise<void> {
    const queued = this.queues.get(sessionId);
    if (!queued?.length) return;
    this.queues.delete(sessionId);
    await this.deliver(sessionId, turnId, queued);
  }

  private async deliver(sessionId: string, turnId: string | null, notifications: QueuedNotification[]): Promise<void> {
    for (const notification of notifications) {
      const { message } = await this.host.store.appendMessage({
        sessionId,
        role: 'user',
        kind: 'task_notification',
        parts: notification.parts,
        turnId,
        metadata: notification.metadata,
      });
      this.host.events.emit('task-end', { ...notification.event, messageId: message.id });
    }
  }

  /** Wait until every task started so far has ended and its result was handled. */
  async settled(): Promise<void> {
    while (this.live.size > 0) await Promise.all([...this.live.values()].map((task) => task.done.catch(() => {})));
  }

  /** Kill every task (runtime shutdown); their results are discarded as stopped. */
  killAll(): void {
    for (const task of this.live.values()) task.kill();
  }
}

function filesLine(checkpoints: readonly Checkpoint[], failure: string | null): string {
  const paths = [...new Set(checkpoints.map((checkpoint) => displayPath(checkpoint.path)))];
  const changed =
    paths.length === 0
      ? ''
      : `\nFiles it changed (checkpointed): ${paths.slice(0, 20).join(', ')}${paths.length > 20 ? ` and ${paths.length - 20} more` : ''}.`;
  return failure === null ? changed : `${changed}\nIts file changes were not checkpointed: ${failure}.`;
}
