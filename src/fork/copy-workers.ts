import { Worker } from 'node:worker_threads';

/** What a worker did with one `copy` job: its bytes, a reason it was skipped, or `sparse` (left to the caller). */
export type WorkerCopyResult =
  | { index: number; bytes: number }
  | { index: number; skipped: 'missing' | 'not_regular' | 'unreadable'; detail?: string }
  | { index: number; sparse: true; mode: number };

/**
 * The workers' code, plain CommonJS evaluated as it is (so it runs the same from the build and
 * from TypeScript sources). Each worker waits for a go (the directories exist), then takes its
 * contiguous share of the jobs (so two workers seldom create files in one directory at once, where
 * they would queue on its lock) and does what
 * `writeJob` does for a `copy` job, with synchronous calls: examined with `lstat`, a link
 * recreated with its exact bytes, a regular file copied exclusively (a reflink where the file
 * system has them, else the kernel's in-place copy, the permission bits kept), a sparse file
 * handed back so the caller copies it with its holes. It stops at the first unexpected error.
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { dir, jobs, start, end } = workerData;
const flags = fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE;
const results = [];
let done = 0;
function copyOne(index, job) {
  const destination = dir + '/' + job.path;
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
      fs.symlinkSync(target, destination);
      return { index, bytes: target.length };
    }
    if (stats.size > 0 && stats.blocks * 512 < stats.size) return { index, sparse: true, mode: stats.mode };
    fs.copyFileSync(job.source, destination, flags);
    return { index, bytes: stats.size };
  } catch (error) {
    if (error.code !== 'EACCES' && error.code !== 'EPERM') throw error;
    return { index, skipped: 'unreadable', detail: error.code };
  }
}
parentPort.once('message', () => {
try {
  for (let index = start; index < end; index++) {
    results.push(copyOne(index, jobs[index]));
    if (++done % 512 === 0) parentPort.postMessage({ progress: 512 });
  }
  parentPort.postMessage({ progress: done % 512, results });
} catch (error) {
  parentPort.postMessage({ error: { message: error.message, code: error.code, syscall: error.syscall, path: error.path } });
}
parentPort.close();
});
`;

/**
 * Runs `copy` jobs (`source` → `dir/path`) on `workers` worker threads, each with synchronous
 * file calls, so no per-file round trip through the main thread and libuv's queue: the main
 * thread only starts them and collects what they did. The workers start at once and begin
 * copying when `ready` (the directories made) resolves; if it rejects they are stopped unused.
 * Resolves once every worker has finished; rejects with the first unexpected error (a Node
 * system error with its code) after all have stopped, so nothing writes into `dir` afterwards.
 */
export async function copyInWorkers(
  dir: string,
  jobs: ReadonlyArray<{ path: string; source: string }>,
  workers: number,
  ready: Promise<unknown>,
  onProgress?: (done: number) => void,
): Promise<WorkerCopyResult[]> {
  const plain = jobs.map((job) => ({ path: job.path, source: job.source }));
  const results: WorkerCopyResult[] = [];
  let failure: Error | null = null;
  const started: Worker[] = [];
  const all = Promise.all(
    Array.from(
      { length: workers },
      (_, start) =>
        new Promise<void>((resolve) => {
          const share = Math.ceil(plain.length / workers);
          const workerData = { dir, jobs: plain, start: start * share, end: Math.min(plain.length, (start + 1) * share) };
          const worker = new Worker(SOURCE, { eval: true, workerData });
          started.push(worker);
          let finished = false;
          worker.on(
            'message',
            (message: { progress?: number; results?: WorkerCopyResult[]; error?: { message: string; code?: string; syscall?: string; path?: string } }) => {
              if (message.progress) onProgress?.(message.progress);
              if (message.results) results.push(...message.results);
              if (message.error) failure ??= Object.assign(new Error(message.error.message), message.error);
              finished ||= message.results !== undefined || message.error !== undefined;
            },
          );
          worker.once('error', (error) => {
            failure ??= error;
          });
          // A worker's last message arrives before its exit; one that exits without it stopped part-way.
          worker.once('exit', () => {
            if (!finished) failure ??= new Error('a copy worker stopped before finishing');
            resolve();
          });
        }),
    ),
  );
  try {
    await ready;
  } catch (error) {
    for (const worker of started) void worker.terminate();
    await all;
    throw error;
  }
  for (const worker of started) worker.postMessage('go');
  await all;
  if (failure) throw failure;
  return results;
}
