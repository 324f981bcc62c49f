import { randomBytes } from 'node:crypto';
import type { EventBus, JsonObject, JsonValue, PartContent } from '../model/index.js';
import type { TaskRegistry } from '../rewind/index.js';
import type { Store } from '../store/index.js';
import type { RuntimeEvents } from './runtime-events.js';
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
  maxOutputChars: number;
  /** The turn running in the session in this runtime, if any. */
  runningTurn(sessionId: string): string | null;
}

/**
 * Shell commands started with `bash { background: true }`. Each is a child process in its own
 * process group, registered in the engine's {@link TaskRegistry} with its turn and the session's
 * branch generation, so a conversation rewind that cuts the turn stops it first. When one ends its
 * result is delivered as a `task_notification` message — right away when the session is idle, else
 * just before the running turn's next model call — unless it was stopped or the session's branch
 * generation moved on (a rewind elsewhere): then it is discarded (`task-end` with `discarded`).
 * Background commands are not scanned, so their turn is marked partially protected.
 */
export class BackgroundTasks {
  private readonly queues = new Map<string, QueuedNotification[]>();
  private readonly live = new Map<string, { done: Promise<void>; kill: () => void }>();

  constructor(private readonly host: BackgroundHost) {}

  async start(input: { sessionId: string; turnId: string; branchGeneration: number; command: string; cwd: string; description?: string }): Promise<{ taskId: string; pid: number | null }> {
    const { store, tasks, events } = this.host;
    const taskId = `task_${randomBytes(6).toString('hex')}`;
    const turn = await store.getTurn(input.turnId);
    const previous = Array.isArray(turn.metadata.backgroundTasks) ? turn.metadata.backgroundTasks : [];
    await store.updateTurn(input.turnId, {
      metadata: { partiallyProtected: true, backgroundTasks: [...previous, { taskId, command: input.command, reason: 'background commands are not scanned; their file changes are not checkpointed' }] },
    });
    const child = spawnShell(input.command, input.cwd);
    const output = collectOutput(child, this.host.maxOutputChars);
    let stopped = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('error', () => resolve({ code: null, signal: null }));
      child.on('close', (code, signal) => resolve({ code, signal }));
    });
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
        return true;
      },
    });
    const done = exited.then(async ({ code }) => {
      unregister();
      const base = { sessionId: input.sessionId, turnId: input.turnId, taskId, exitCode: code };
      if (stopped) {
        events.emit('task-end', { ...base, discarded: true, reason: 'stopped', messageId: null });
        return;
      }
      const session = await store.findSession(input.sessionId);
      const current = session?.branchGeneration ?? Number.POSITIVE_INFINITY;
      if (!tasks.acceptsResult({ sessionId: input.sessionId, branchGeneration: input.branchGeneration }) || current > input.branchGeneration) {
        events.emit('task-end', { ...base, discarded: true, reason: 'stale-branch', messageId: null });
        return;
      }
      const text = `Background task ${taskId} (\`${input.command}\`) finished with ${code === null ? 'no exit code (killed)' : `exit code ${code}`}.\n${output()}`;
      const notification: QueuedNotification = {
        parts: [{ type: 'text', text }],
        metadata: { task: { taskId, command: input.command, exitCode: code, turnId: input.turnId } as JsonValue },
        event: { ...base, discarded: false, reason: 'finished' },
      };
      if (this.host.runningTurn(input.sessionId) !== null) this.queue(input.sessionId, notification);
      else await this.deliver(input.sessionId, null, [notification]);
    });
    this.live.set(taskId, {
      done: done.finally(() => this.live.delete(taskId)),
      kill: () => {
        stopped = true;
        killGroup(child, 'SIGKILL');
      },
    });
    events.emit('task-start', { sessionId: input.sessionId, turnId: input.turnId, taskId, command: input.command, branchGeneration: input.branchGeneration });
    return { taskId, pid: child.pid ?? null };
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
      const { message } = await this.host.store.appendMessage({ sessionId, role: 'user', kind: 'task_notification', parts: notification.parts, turnId, metadata: notification.metadata });
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
