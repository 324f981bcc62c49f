import { ConflictError } from '../../model/index.js';

/** A background task started by a turn: a long shell command, a subagent … */
export interface BackgroundTask {
  id: string;
  sessionId: string;
  turnId: string;
  /** The session's branch generation when the task started. */
  branchGeneration: number;
  description?: string;
  /** Stop the task; resolve true once it has stopped, false when it cannot be stopped. */
  stop(): Promise<boolean>;
}

export interface StopReport {
  stopped: string[];
  /** Tasks that refused to stop (or threw); a rewind that needs them stopped must fail whole. */
  failed: Array<{ id: string; reason: string }>;
}

/**
 * Background tasks by session, turn and branch generation. A conversation rewind stops the tasks
 * started in the turns it cuts before it moves the head; a task result that arrives after the
 * session's branch generation moved on belongs to a branch that is no longer active and is
 * discarded (`acceptsResult`).
 */
export class TaskRegistry {
  private readonly tasks = new Map<string, BackgroundTask>();
  private readonly generations = new Map<string, number>();

  register(task: BackgroundTask): () => void {
    this.tasks.set(task.id, task);
    return () => this.tasks.delete(task.id);
  }

  /** Tasks still registered for a session (optionally only those of some turns). */
  running(sessionId: string, turnIds?: ReadonlySet<string>): BackgroundTask[] {
    return [...this.tasks.values()].filter((task) => task.sessionId === sessionId && (!turnIds || turnIds.has(task.turnId)));
  }

  /** Stop every task of these turns; stopped tasks are unregistered. */
  async stopTurns(sessionId: string, turnIds: ReadonlySet<string>): Promise<StopReport> {
    const report: StopReport = { stopped: [], failed: [] };
    await Promise.all(
      this.running(sessionId, turnIds).map(async (task) => {
        try {
          if (await task.stop()) {
            this.tasks.delete(task.id);
            report.stopped.push(task.id);
          } else {
            report.failed.push({ id: task.id, reason: 'the task did not stop' });
          }
        } catch (error) {
          report.failed.push({ id: task.id, reason: (error as Error).message });
        }
      }),
    );
    return report;
  }

  /** Record the session's current branch generation (after a rewind committed). */
  setGeneration(sessionId: string, generation: number): void {
    this.generations.set(sessionId, generation);
  }

  /** False for a late result of a task started on a branch the session has rewound away from. */
  acceptsResult(task: Pick<BackgroundTask, 'sessionId' | 'branchGeneration'>): boolean {
    const current = this.generations.get(task.sessionId);
    return current === undefined || task.branchGeneration >= current;
  }
}

/**
 * Stops the tasks of `turnIds` before a head move that cuts those turns; if any will not stop,
 * raises `TASK_STOP_FAILED` (nothing else was changed). Returns the ids of the stopped tasks.
 */
export async function stopTasksOrFail(tasks: TaskRegistry | undefined, sessionId: string, turnIds: ReadonlySet<string>): Promise<string[]> {
  if (!tasks) return [];
  const report = await tasks.stopTurns(sessionId, turnIds);
  if (report.failed.length > 0) {
    throw new ConflictError({
      code: 'TASK_STOP_FAILED',
      message: `Cannot rewind: ${report.failed.length} background task(s) of the turns being cut would not stop (${report.failed.map((failure) => `${failure.id}: ${failure.reason}`).join('; ')}). Nothing was changed; stop them and try again.`,
      details: { failed: report.failed, stopped: report.stopped },
    });
  }
  return report.stopped;
}
