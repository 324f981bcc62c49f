import { FileWriteFailedError, type EntryStat, type KeptFiles, type PreparedFileWrite, type ResolvedPath } from '../../workspace/index.js';
import { timingEvent } from './apply-timing.js';
import { beginTempWrite } from './apply-step.js';
import type { PlannedStep } from './rewind-plan.js';

/** One temp file begun early: where, with what, and its write (null: not possible there, left to the step). */
interface EarlyWrite {
  realPath: string;
  hash: string;
  mode: number;
  written: Promise<PreparedFileWrite | null>;
  taken: boolean;
}

/**
 * Temp files of a direct rewind's target contents, begun while the rewind is still being planned:
 * as soon as a path's content to put back is known (its oldest change's snapshot, read), its temp
 * file beside it is written (`beginTempWrite`), and once all are, their fsyncs run together in the
 * thread pool while the plan reads the work tree and the journal is recorded. Only temp files: no
 * file of the work tree is touched before the journal is durable. The apply takes the one that
 * matches a step exactly (same path, content and mode); {@link dispose} removes every one not
 * taken — a refusal, a plan that came out otherwise. A kill before the journal is recorded can
 * leave hidden `.wp-tmp` files, which scans pass over, as any crashed atomic write's.
 */
export class EarlyWrites {
  private readonly writes = new Map<string, EarlyWrite>();

  /** `kept`: files earlier rewinds replaced; one that holds a content begun here is taken instead of a temp file (see `KeptFiles`). */
  constructor(
    private readonly durable: boolean,
    private readonly kept?: KeptFiles,
  ) {}

  /**
   * Begins the temp file for `content` (hash `hash`, permission bits `mode`) at `target`, resolved
   * just now with `resolvedEntry` its entry's lstat (see `AtomicWriteOptions`). A second call for the
   * same path is ignored.
   */
  begin(target: ResolvedPath, hash: string, content: Buffer, mode: number, resolvedEntry?: EntryStat): void {
    if (this.writes.has(target.realPath)) return;
    let reused: PreparedFileWrite | null = null;
    try {
      reused = this.kept?.take(target, hash, mode, this.durable, resolvedEntry) ?? null;
    } catch (error) {
      if (!(error instanceof FileWriteFailedError)) throw error;
    }
    if (reused !== null) {
      this.writes.set(target.realPath, { realPath: target.realPath, hash, mode, written: Promise.resolve(reused), taken: false });
      return;
    }
    const written = beginTempWrite(target, content, { mode, durable: this.durable, createParents: false, resolvedEntry }).then(
      (write) => {
        // The fsync starts once every write of the caller's loop is made (see `beginTempWrite`);
        // its outcome is met again by the apply's own `sync()` (the same promise).
        timingEvent('temp-sync-begun');
        write.sync().then(
          () => timingEvent('temp-synced'),
          () => undefined,
        );
        return write;
      },
      (error: unknown) => {
        if (error instanceof FileWriteFailedError) return null;
        throw error;
      },
    );
    written.catch(() => undefined);
    this.writes.set(target.realPath, { realPath: target.realPath, hash, mode, written, taken: false });
  }

  /**
   * The early write for `step`, when one was begun for exactly its path, target content and mode;
   * the caller owns it from then on (commits or aborts it). Undefined otherwise.
   */
  take(step: PlannedStep): Promise<PreparedFileWrite | null> | undefined {
    const early = this.writes.get(step.resolved.realPath);
    if (!early || early.taken || early.hash !== step.target.hash || early.mode !== step.target.mode || step.resolved.linkInPath) return undefined;
    early.taken = true;
    return early.written;
  }

  /** Resolves once every temp file begun is written, or known not to be possible. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes.values()].map((early) => early.written));
  }

  /** Removes the temp files no step took, once their writes have settled. */
  async dispose(): Promise<void> {
    const left = [...this.writes.values()].filter((early) => !early.taken);
    this.writes.clear();
    await Promise.all(
      left.map((early) =>
        early.written.then(
          (write) => write?.abort(),
          () => undefined,
        ),
      ),
    );
  }
}
