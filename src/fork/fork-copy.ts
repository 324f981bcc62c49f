import { execFile } from 'node:child_process';
import { constants, lstatSync, type Stats } from 'node:fs';
import { chmod, copyFile, mkdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { copyNewFile, fsyncTreeEntries } from '../workspace/index.js';
import { type CopyPool, copyInWorkers, type WorkerCopyResult } from './copy-workers.js';

/** One entry to create in a fork's new directory; `group` says whose it is (-1: the workspace's, else an ignored path's index). */
export type CopyJob =
  /** Whatever the parent's directory holds at `source` now: a regular file is copied (its permission bits come along), a symlink recreated. */
  | { kind: 'copy'; path: string; source: string; group: number }
  /** A symlink with this exact text, never followed. */
  | { kind: 'symlink'; path: string; target: string | Buffer; group: number }
  /** A regular file with these bytes (a state restored from the blob store). */
  | { kind: 'content'; path: string; mode: number; content: Buffer; group: number };

/** What {@link writeJobs} wrote, per group, and the sources it found gone or not regular. */
export interface WriteOutcome {
  files: Map<number, number>;
  bytes: Map<number, number>;
  skipped: Array<{ path: string; group: number; reason: 'missing' | 'not_regular' | 'unreadable'; detail?: string }>;
}

/** Copies in flight at once: enough to keep libuv's thread pool and the disk queue busy. */
const CONCURRENCY = 16;
/** From this many entries on, files are copied on worker threads: starting them costs a few tens of milliseconds. */
export const WORKER_THRESHOLD = 2048;
/** Copy workers: one per core, at least two (one may wait on the disk while the other copies), at most four. */
export const WORKERS = Math.min(4, Math.max(2, availableParallelism()));

/**
 * Creates every job's entry under `dir` (a fresh directory nobody else writes into): the
 * directories first (in parallel, a level at a time), then the entries by a bounded pool of
 * parallel operations, each source examined (`lstat`) as it is copied; from a few thousand
 * entries on, the file copies run on worker threads ({@link copyInWorkers}), started while the
 * directories are made. A file copy asks the kernel for a reflink
 * (`COPYFILE_FICLONE`: instant and sharing blocks on btrfs, XFS, APFS) and falls back to an
 * in-kernel copy; a sparse file is copied in chunks instead, so its holes stay holes.
 * Destinations are created exclusively, so nothing existing is overwritten or written through.
 * Paths must be relative and `/`-separated, and no job's path may lie below another's (the caller
 * checks): the only links are the ones jobs create, after every directory exists.
 */
export async function writeJobs(
  dir: string,
  jobs: readonly CopyJob[],
  onDone?: () => void,
  options: { workerThreshold?: number; pool?: CopyPool; outcome?: WriteOutcome } = {},
): Promise<WriteOutcome> {
  const outcome: WriteOutcome = options.outcome ?? emptyOutcome();
  // Many files: the copies run on worker threads, each with synchronous calls (see copyInWorkers);
  // the few restored contents and links stay on the main thread's pool, meanwhile.
  const copies = options.pool || jobs.length >= (options.workerThreshold ?? WORKER_THRESHOLD) ? jobs.filter((job) => job.kind === 'copy') : [];
  const rest = copies.length > 0 ? jobs.filter((job) => job.kind !== 'copy') : jobs;
  const directories = new Set<string>();
  // Copies on a pool that is already running make their own directories, as they need them.
  for (const job of options.pool ? rest : jobs) {
    for (let parent = dirname(job.path); parent !== '.' && !directories.has(parent); parent = dirname(parent)) directories.add(parent);
  }
  // Level by level, each level's directories created in parallel in the thread pool; beside a
  // running pool a directory may exist already.
  const levels: string[][] = [];
  for (const relative of directories) (levels[relative.split('/').length - 1] ??= []).push(relative);
  const made = (async () => {
    for (const level of levels) if (level) await Promise.all(level.map((relative) => mkdir(join(dir, relative), { recursive: options.pool !== undefined })));
  })();
  const progress = (done: number) => {
    for (let index = 0; index < done; index++) onDone?.();
  };
  let next = 0;
  const writer = async () => {
    await made;
    while (next < rest.length) {
      const job = rest[next++]!;
      const bytes = await writeJob(dir, job, outcome);
      if (bytes !== null) count(outcome, job, bytes);
      onDone?.();
    }
  };
  // Both finish before anything is thrown, so nothing writes into `dir` once the caller cleans it up.
  const [copied, written] = await Promise.allSettled([
    copies.length === 0 ? Promise.resolve([]) : options.pool ? options.pool.run(copies, progress) : copyInWorkers(dir, copies, WORKERS, made, progress),
    Promise.all([made, ...Array.from({ length: Math.min(CONCURRENCY, rest.length) }, writer)]),
  ]);
  if (copied.status === 'rejected') throw copied.reason;
  if (written.status === 'rejected') throw written.reason;
  countWorkerResults(dir, copies, copied.value, outcome);
  return outcome;
}

export function emptyOutcome(): WriteOutcome {
  return { files: new Map(), bytes: new Map(), skipped: [] };
}

function count(outcome: WriteOutcome, job: { group: number }, bytes: number): void {
  outcome.files.set(job.group, (outcome.files.get(job.group) ?? 0) + 1);
  outcome.bytes.set(job.group, (outcome.bytes.get(job.group) ?? 0) + bytes);
}

/** Adds what workers did with `copies` to `outcome`; a sparse file they handed back is copied here, with its holes. */
export function countWorkerResults(
  dir: string,
  copies: ReadonlyArray<{ path: string; source: string; group: number }>,
  results: readonly WorkerCopyResult[],
  outcome: WriteOutcome,
): void {
  for (const result of results) {
    const job = copies[result.index]!;
    if ('bytes' in result) count(outcome, job, result.bytes);
    else if ('sparse' in result) count(outcome, job, copyNewFile(job.source, join(dir, job.path), result.mode));
    else outcome.skipped.push({ path: job.path, group: job.group, reason: result.skipped, ...(result.detail === undefined ? {} : { detail: result.detail }) });
  }
}

/** Writes one entry; returns its bytes, or null when its source was gone or not a file or link. */
async function writeJob(dir: string, job: CopyJob, outcome: WriteOutcome): Promise<number | null> {
  const destination = join(dir, job.path);
  switch (job.kind) {
    case 'symlink':
      await symlink(job.target, destination);
      return Buffer.byteLength(job.target);
    case 'content':
      await writeFile(destination, job.content, { flag: 'wx', mode: 0o600 });
      await chmod(destination, job.mode & 0o7777);
      return job.content.length;
    case 'copy': {
      let stats: Stats;
      try {
        // A synchronous lstat costs a few microseconds here; through the thread pool it would cost a round trip per file.
        stats = lstatSync(job.source);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
        outcome.skipped.push({ path: job.path, group: job.group, reason: 'missing' });
        return null;
      }
      if (!stats.isSymbolicLink() && !stats.isFile()) {
        outcome.skipped.push({ path: job.path, group: job.group, reason: 'not_regular', ...(stats.isDirectory() ? { detail: 'a directory now' } : {}) });
        return null;
      }
      try {
        if (stats.isSymbolicLink()) {
          // The link's exact bytes: its text need not be UTF-8.
          const target = await readlink(job.source, { encoding: 'buffer' });
          await symlink(target, destination);
          return Buffer.byteLength(target);
        }
        if (stats.size > 0 && stats.blocks * 512 < stats.size) return copyNewFile(job.source, destination, stats.mode);
        // libuv gives the copy the source's permission bits exactly (an fchmod, so the umask does not narrow them).
        await copyFile(job.source, destination, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
        return stats.size;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EACCES' && code !== 'EPERM') throw error;
        outcome.skipped.push({ path: job.path, group: job.group, reason: 'unreadable', detail: code });
        return null;
      }
    }
  }
}

/**
 * Makes everything written under `dir` durable with one `syncfs` of its file system (`sync -f`),
 * instead of an fsync per file: a fresh tree has no earlier content to protect part-way, only its
 * end state must be on disk before it is renamed into place. Where `sync -f` is missing, every
 * file and directory is fsynced.
 */
export async function syncTree(dir: string): Promise<void> {
  const synced = await new Promise<boolean>((resolve) => execFile('sync', ['-f', dir], (error) => resolve(error === null)));
  if (!synced) fsyncTreeEntries(dir);
}
