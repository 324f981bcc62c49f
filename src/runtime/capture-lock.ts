/**
 * One capture at a time per session, in this runtime. Held around every `workspace` tool call
 * (write, edit, a foreground bash command for its whole run, the start of a background command)
 * and around the capture a background command gets when it ends, so a change is seen by exactly
 * one capture: a background task's end scan never runs while a tool is half way through a write or
 * a foreground command is running. Not reentrant: a tool that runs other tools (the subagent) is
 * not wrapped; its nested calls take the lock themselves.
 */
export class CaptureLocks {
  private readonly tails = new Map<string, Promise<void>>();
  private active = 0;

  /** Run `fn` once every earlier holder of this session's lock has finished. */
  async run<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(sessionId, tail);
    await previous;
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      release();
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    }
  }

  /** True while some session's lock is held or awaited (a capture is running or about to). */
  get busy(): boolean {
    return this.active > 0 || this.tails.size > 0;
  }
}

const shared = new WeakMap<object, CaptureLocks>();

/**
 * The capture locks of one opened Waypoint, shared by every runtime over it and every tool set
 * `checkpointTools` wraps, so a wrapped AI SDK tool, a runtime tool and a background task's end
 * scan of the same session never capture at the same time.
 */
export function captureLocksFor(waypoint: object): CaptureLocks {
  let locks = shared.get(waypoint);
  if (!locks) shared.set(waypoint, (locks = new CaptureLocks()));
  return locks;
}
