import { Worker } from 'node:worker_threads';

/** What a worker did with one `copy` job: its bytes, a reason it was skipped, or `sparse` (left to the caller). */
export type WorkerCopyResult =
  | { index: number; bytes: number }
  | { index: number; skipped: 'missing' | 'not_regular' | 'unreadable'; detail?: string }
  | { index: number; sparse: true; mode: number };

/**
 * The workers' code, plain CommonJS evaluated as it is (so it runs the same from the build and
 * from TypeScript sources). A worker takes batches of jobs, one after another, and does what
 * `writeJob` does for a `copy` job, with synchronous calls: examined with `lstat`, a link
 * recreated with its exact bytes, a regular file copied exclusively (a reflink where the file
 * system has them — asked once per worker, not per file — else the kernel's in-place copy, the
 * permission bits kept), a sparse file
 * handed back so the caller copies it with its holes. With `makeDirectories` a worker first makes
 * the directories its share needs (one `mkdir` each, in the worker rather than on the main thread
 * before any copy starts); a destination whose directory is still missing gets it made when the copy
 * fails. Links are only made by jobs and no job lies below another, so no directory is made through
 * one. A batch stops at the first unexpected error.
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { dir } = workerData;
const { COPYFILE_EXCL, COPYFILE_FICLONE_FORCE } = fs.constants;
// Whether reflinks work between the sources and dir: unknown until the first regular file is
// copied with FICLONE_FORCE; after that every copy is a reflink or, where they fail, a plain
// in-kernel copy with no ioctl tried first (one file system each side for a worker's life).
let reflinks = null;
function copyRegular(source, destination) {
  if (reflinks === false) return fs.copyFileSync(source, destination, COPYFILE_EXCL);
  try {
    fs.copyFileSync(source, destination, COPYFILE_EXCL | COPYFILE_FICLONE_FORCE);
    reflinks = true;
  } catch (error) {
    // A missing directory, the source gone or unreadable: the caller decides; anything else is the
    // clone refused (the copy was removed again), so this file and all after it are copied plainly.
    if (error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EEXIST') throw error;
    reflinks = false;
    fs.copyFileSync(source, destination, COPYFILE_EXCL);
  }
}
function withDirectory(destination, make) {
  try {
    return make();
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    fs.mkdirSync(path.dirname(destination), { recursive: true });
    return make();
  }
}
// The index being written for the copies (a copy of the parent's, shared with the main thread), when asked for.
let indexView = null;
let indexBytes = null;
let racyFrom = 0;
const EMPTY_BLOB = Buffer.from('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', 'hex');
const low = (value) => Number(value & 0xffffffffn);
const seconds = (ms) => Math.floor(ms / 1000);
// Nanoseconds within the second, as exact as a millisecond double carries them (a fraction of a microsecond).
const nanoseconds = (ms) => Math.round((ms - seconds(ms) * 1000) * 1e6);
const sameTime = (at, ms) => indexView.getUint32(at) === seconds(ms) % 4294967296 && Math.abs(indexView.getUint32(at + 4) - nanoseconds(ms)) <= 1000;
// Whether the parent's index entry at \`at\` describes the file as it is (\`stats\`): the same times (to
// the microsecond: two writes to a file are a clock tick apart), inode, owner, size and kind, not
// racily clean (changed in the second the index was written, or later), and not a smudged entry
// (size 0 for a non-empty blob). Then the file is what the entry's object names, as git's own
// stat check would take it.
function cleanInParent(at, stats) {
  const view = indexView;
  const mode = stats.isSymbolicLink() ? 0o120000 : stats.mode & 0o100 ? 0o100755 : 0o100644;
  if (view.getUint32(at + 24) !== mode) return false;
  if (view.getUint32(at + 8) >= racyFrom) return false;
  if (view.getUint32(at + 36) === 0 && !indexBytes.subarray(at + 40, at + 60).equals(EMPTY_BLOB)) return false;
  return (
    sameTime(at, stats.ctimeMs) && sameTime(at + 8, stats.mtimeMs) &&
    view.getUint32(at + 20) === stats.ino % 4294967296 && view.getUint32(at + 28) === stats.uid && view.getUint32(at + 32) === stats.gid &&
    view.getUint32(at + 36) === stats.size % 4294967296
  );
}
// After a copy of a file its parent's entry described: the entry takes the copy's stat data when the
// source did not change during the copy, so git takes the copy as clean without reading it.
function refresh(at, source, destination, before) {
  const after = fs.lstatSync(source);
  if (after.ctimeMs !== before.ctimeMs || after.mtimeMs !== before.mtimeMs || after.ino !== before.ino || after.size !== before.size) return;
  // The copy's own times to the nanosecond, as git would record them.
  const copy = fs.lstatSync(destination, { bigint: true });
  const view = indexView;
  view.setUint32(at, low(copy.ctimeNs / 1000000000n));
  view.setUint32(at + 4, Number(copy.ctimeNs % 1000000000n));
  view.setUint32(at + 8, low(copy.mtimeNs / 1000000000n));
  view.setUint32(at + 12, Number(copy.mtimeNs % 1000000000n));
  view.setUint32(at + 16, low(copy.dev));
  view.setUint32(at + 20, low(copy.ino));
  view.setUint32(at + 28, low(copy.uid));
  view.setUint32(at + 32, low(copy.gid));
  view.setUint32(at + 36, low(copy.size));
}
function copyOne(index, job) {
  const destination = dir + '/' + job.path;
  const entry = indexView !== null && job.entry !== undefined && job.entry >= 0 ? job.entry : -1;
  let stats;
  try {
    stats = fs.lstatSync(job.source);
  } catch (error) {
    if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') throw error;
    return { index, skipped: 'missing' };
  }
  if (!stats.isSymbolicLink() && !stats.isFile())
    return stats.isDirectory() ? { index, skipped: 'not_regular', detail: 'a directory now' } : { index, skipped: 'not_regular' };
  try {
    if (stats.isSymbolicLink()) {
      const target = fs.readlinkSync(job.source, { encoding: 'buffer' });
      const clean = entry >= 0 && cleanInParent(entry, stats);
      withDirectory(destination, () => fs.symlinkSync(target, destination));
      if (clean) refresh(entry, job.source, destination, stats);
      return { index, bytes: target.length };
    }
    const size = stats.size;
    if (size > 0 && stats.blocks * 512 < size) return { index, sparse: true, mode: stats.mode };
    const clean = entry >= 0 && cleanInParent(entry, stats);
    withDirectory(destination, () => copyRegular(job.source, destination));
    if (clean) refresh(entry, job.source, destination, stats);
    return { index, bytes: size };
  } catch (error) {
    // The source went away between its lstat and its copy.
    if (error.code === 'ENOENT' && !fs.existsSync(job.source)) return { index, skipped: 'missing' };
    if (error.code !== 'EACCES' && error.code !== 'EPERM') throw error;
    return { index, skipped: 'unreadable', detail: error.code };
  }
}
parentPort.on('message', ({ batch, jobs, first, makeDirectories, index }) => {
  if (index) {
    indexView = new DataView(index.buffer);
    indexBytes = Buffer.from(index.buffer);
    racyFrom = index.racyFrom;
  } else indexView = null;
  const results = [];
  let done = 0;
  try {
    if (makeDirectories) {
      const made = new Set();
      for (const job of jobs) {
        const slash = job.path.lastIndexOf('/');
        const parent = slash === -1 ? '' : job.path.slice(0, slash);
        if (parent === '' || made.has(parent)) continue;
        made.add(parent);
        fs.mkdirSync(dir + '/' + parent, { recursive: true });
      }
    }
    for (let offset = 0; offset < jobs.length; offset++) {
      results.push(copyOne(first + offset, jobs[offset]));
      if (++done % 512 === 0) parentPort.postMessage({ batch, progress: 512 });
    }
    parentPort.postMessage({ batch, progress: done % 512, results });
  } catch (error) {
    parentPort.postMessage({ batch, error: { message: error.message, code: error.code, syscall: error.syscall, path: error.path } });
  }
});
`;

/**
 * A copy of the parent's index file in memory shared with the workers. A job naming an entry
 * (`entry`: its offset in `buffer`) whose source the entry describes as it is gets the copy's
 * stat data written into the entry, so git in the fork takes the copy as clean without reading
 * it; any other entry keeps the parent's stat data, and git reads that file once. `racyFrom`: the
 * second the parent's index was written (entries of files changed then or later prove nothing).
 */
export interface SharedIndex {
  buffer: SharedArrayBuffer;
  racyFrom: number;
}

interface Batch {
  left: number;
  results: WorkerCopyResult[];
  failure: Error | null;
  progress?: ((done: number) => void) | undefined;
  done: () => void;
}

type WorkerMessage = {
  batch: number;
  progress?: number;
  results?: WorkerCopyResult[];
  error?: { message: string; code?: string; syscall?: string; path?: string };
};

/**
 * Worker threads that copy `copy` jobs (`source` → `dir/path`), each with synchronous file calls,
 * so no per-file round trip through the main thread and libuv's queue: the main thread only
 * hands out batches and collects what was done. Started before anything is known to copy (a
 * worker takes a few tens of milliseconds to start), then fed with {@link run} as the lists come
 * in. {@link close} stops them; it resolves once none can write into `dir` any more.
 */
export class CopyPool {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Batch>();
  private nextBatch = 0;
  private crashed: Error | null = null;

  constructor(
    readonly dir: string,
    size: number,
  ) {
    this.workers = Array.from({ length: size }, () => {
      const worker = new Worker(SOURCE, { eval: true, workerData: { dir } });
      worker.on('message', (message: WorkerMessage) => this.receive(message));
      // A worker that dies fails every batch still open: none of them can finish.
      const fail = (error: Error) => {
        this.crashed ??= error;
        for (const batch of this.pending.values()) {
          batch.failure ??= error;
          batch.done();
        }
        this.pending.clear();
      };
      worker.once('error', fail);
      worker.once('exit', () => fail(new Error('a copy worker stopped before finishing')));
      return worker;
    });
  }

  /**
   * Copies `jobs`, each worker a contiguous share (so two workers seldom create files in one
   * directory at once, where they would queue on its lock). Resolves with one result per job
   * (`index` into `jobs`) once every share is done; rejects with the first unexpected error (a
   * Node system error with its code) once every share has stopped.
   */
  run(
    jobs: ReadonlyArray<{ path: string; source: string; entry?: number }>,
    onProgress?: (done: number) => void,
    options: { makeDirectories?: boolean; index?: SharedIndex } = {},
  ): Promise<WorkerCopyResult[]> {
    if (this.crashed) return Promise.reject(this.crashed);
    if (jobs.length === 0) return Promise.resolve([]);
    const batch = this.nextBatch++;
    const share = Math.ceil(jobs.length / this.workers.length);
    const shares = this.workers.map((_, index) => [index * share, Math.min(jobs.length, (index + 1) * share)] as const).filter(([from, to]) => from < to);
    return new Promise((resolve, reject) => {
      const state: Batch = {
        left: shares.length,
        results: [],
        failure: null,
        progress: onProgress,
        done: () => (state.failure ? reject(state.failure) : resolve(state.results)),
      };
      this.pending.set(batch, state);
      shares.forEach(([from, to], index) => {
        const slice = jobs.slice(from, to).map((job) => ({ path: job.path, source: job.source, entry: job.entry }));
        this.workers[index]!.postMessage({ batch, jobs: slice, first: from, makeDirectories: options.makeDirectories ?? true, index: options.index });
      });
    });
  }

  private receive(message: WorkerMessage): void {
    const state = this.pending.get(message.batch);
    if (!state) return;
    if (message.progress) state.progress?.(message.progress);
    if (message.error) state.failure ??= Object.assign(new Error(message.error.message), message.error);
    if (message.results) state.results.push(...message.results);
    if (message.results || message.error) {
      if (--state.left === 0) {
        this.pending.delete(message.batch);
        state.done();
      }
    }
  }

  /** Stops every worker; resolves once all have stopped, so nothing writes into `dir` afterwards. */
  async close(): Promise<void> {
    this.crashed ??= new Error('the copy workers were closed');
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/**
 * Runs `copy` jobs on `workers` worker threads of a {@link CopyPool}: they start at once and
 * begin copying when `ready` (every directory made) resolves; if it rejects they are stopped unused. Resolves once every
 * job is done; rejects with the first unexpected error after all workers have stopped, so nothing
 * writes into `dir` afterwards.
 */
export async function copyInWorkers(
  dir: string,
  jobs: ReadonlyArray<{ path: string; source: string }>,
  workers: number,
  ready: Promise<unknown>,
  onProgress?: (done: number) => void,
): Promise<WorkerCopyResult[]> {
  const pool = new CopyPool(dir, workers);
  try {
    await ready;
    return await pool.run(jobs, onProgress, { makeDirectories: false });
  } finally {
    await pool.close();
  }
}
