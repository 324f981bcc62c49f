import { lstatSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Numbers per path in an {@link lstatAll} table: mode, size, mtimeMs, ctimeMs, ino. */
export const STAT_FIELDS = 5;
/** `mode` slot value of a path that does not exist (ENOENT, ENOTDIR). */
export const STAT_MISSING = -1;
/** `mode` slot value of a path whose lstat failed otherwise: stat it again to learn why. */
export const STAT_FAILED = -2;

/** Below this many paths a single thread is as fast as handing work out. */
export const PARALLEL_MIN_PATHS = 2048;
const MAX_WORKERS = 3;
const CHUNK = 256;
// Control words: next chunk start, paths done, then one state word per chunk (2 = done).
const NEXT = 0;
const DONE = 1;
const CHUNK_STATE = 2;
// A worker that makes no progress for this long is given up on; its chunks are redone here.
const STALL_MS = 2000;

export interface LstatAllOptions {
  /** Spread over worker threads from this many paths on. Default {@link PARALLEL_MIN_PATHS}. */
  parallelFrom?: number;
}

/**
 * `lstat`s every path and returns a table of {@link STAT_FIELDS} numbers per path, in order. With
 * enough paths the work is shared with worker threads (one fewer than the cores, at most 3), which
 * take chunks from a shared counter alongside this thread, so a busy or still-starting worker only
 * means this thread does more. The call stays synchronous: it blocks until every chunk is done.
 * `fs.promises.lstat` is 4–5× slower than a sync loop here; threads running sync loops are not.
 *
 * @example
 * const table = lstatAll(paths)
 * const mode = table[index * STAT_FIELDS]
 */
export function lstatAll(paths: readonly string[], options: LstatAllOptions = {}): Float64Array {
  const total = paths.length;
  const pool = total >= (options.parallelFrom ?? PARALLEL_MIN_PATHS) ? LstatPool.shared() : undefined;
  if (pool === undefined) {
    const table = new Float64Array(total * STAT_FIELDS);
    statRange(paths, table, 0, total);
    return table;
  }
  return pool.run(paths);
}

function statRange(paths: readonly string[], table: Float64Array, start: number, end: number): void {
  for (let index = start; index < end; index++) {
    const offset = index * STAT_FIELDS;
    let stats;
    try {
      stats = lstatSync(paths[index]!, { throwIfNoEntry: false });
    } catch {
      table[offset] = STAT_FAILED;
      continue;
    }
    if (stats === undefined) {
      table[offset] = STAT_MISSING;
      continue;
    }
    table[offset] = stats.mode;
    table[offset + 1] = stats.size;
    table[offset + 2] = stats.mtimeMs;
    table[offset + 3] = stats.ctimeMs;
    table[offset + 4] = stats.ino;
  }
}

// The worker runs the same loop as statRange (kept in step by the pool's tests); CommonJS source
// evaluated directly, so it needs no build step and works under tsx, vitest and the compiled package.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
let paths = [];
parentPort.on('message', (job) => {
  if (job.paths !== undefined) paths = job.paths;
  const control = new Int32Array(job.control);
  const table = new Float64Array(job.table);
  for (;;) {
    const start = Atomics.add(control, ${NEXT}, ${CHUNK});
    if (start >= job.total) break;
    const end = Math.min(job.total, start + ${CHUNK});
    for (let index = start; index < end; index++) {
      const offset = index * ${STAT_FIELDS};
      let stats;
      try {
        stats = lstatSync(paths[index], { throwIfNoEntry: false });
      } catch {
        table[offset] = ${STAT_FAILED};
        continue;
      }
      if (stats === undefined) {
        table[offset] = ${STAT_MISSING};
        continue;
      }
      table[offset] = stats.mode;
      table[offset + 1] = stats.size;
      table[offset + 2] = stats.mtimeMs;
      table[offset + 3] = stats.ctimeMs;
      table[offset + 4] = stats.ino;
    }
    Atomics.store(control, ${CHUNK_STATE} + start / ${CHUNK}, 2);
    Atomics.add(control, ${DONE}, end - start);
    Atomics.notify(control, ${DONE});
  }
});
`;

class LstatPool {
  private static instance: LstatPool | null | undefined;

  /** The process-wide pool, started on first use; null on a single core or after a failure. */
  static shared(): LstatPool | undefined {
    if (LstatPool.instance === undefined) {
      const count = Math.min(MAX_WORKERS, availableParallelism() - 1);
      LstatPool.instance = count > 0 ? new LstatPool(count) : null;
    }
    return LstatPool.instance ?? undefined;
  }

  private readonly workers: Worker[] = [];
  // The path list the workers hold: resent only when the caller passes a different array.
  private sentPaths: readonly string[] | undefined;

  private constructor(count: number) {
    for (let index = 0; index < count; index++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], stdout: false, stderr: false });
      worker.unref();
      worker.on('error', () => this.retire());
      worker.on('exit', () => this.retire());
      this.workers.push(worker);
    }
  }

  run(paths: readonly string[]): Float64Array {
    const total = paths.length;
    const chunks = Math.ceil(total / CHUNK);
    const control = new Int32Array(new SharedArrayBuffer((CHUNK_STATE + chunks) * 4));
    const table = new Float64Array(new SharedArrayBuffer(total * STAT_FIELDS * 8));
    const job: { control: SharedArrayBuffer; table: SharedArrayBuffer; total: number; paths?: readonly string[] } = {
      control: control.buffer as SharedArrayBuffer,
      table: table.buffer as SharedArrayBuffer,
      total,
    };
    if (paths !== this.sentPaths) job.paths = paths;
    for (const worker of this.workers) worker.postMessage(job);
    this.sentPaths = paths;

    for (;;) {
      const start = Atomics.add(control, NEXT, CHUNK);
      if (start >= total) break;
      const end = Math.min(total, start + CHUNK);
      statRange(paths, table, start, end);
      Atomics.store(control, CHUNK_STATE + start / CHUNK, 2);
      Atomics.add(control, DONE, end - start);
    }
    // Wait for the chunks workers took; if they stall, redo those chunks here and stop using them.
    let done = Atomics.load(control, DONE);
    let lastProgress = Date.now();
    while (done < total) {
      Atomics.wait(control, DONE, done, 50);
      const now = Atomics.load(control, DONE);
      if (now !== done) {
        done = now;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress > STALL_MS) {
        for (let chunk = 0; chunk < chunks; chunk++) {
          if (Atomics.load(control, CHUNK_STATE + chunk) !== 2) statRange(paths, table, chunk * CHUNK, Math.min(total, (chunk + 1) * CHUNK));
        }
        this.retire();
        break;
      }
    }
    return table;
  }

  private retire(): void {
    if (LstatPool.instance === this) LstatPool.instance = null;
    for (const worker of this.workers) void worker.terminate();
    this.workers.length = 0;
  }
}
