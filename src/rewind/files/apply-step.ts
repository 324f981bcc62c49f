import { unlink } from 'node:fs/promises';
import { hashContent } from '../../model/index.js';
import {
  FileWriteFailedError,
  moveIf,
  prepareFileWrite,
  prepareFileWriteInPool,
  type AtomicWriteOptions,
  type ResolvedPath,
  replaceIf,
  type DisplacedFile,
  isLinkMode,
  sameMode,
  type HeldFile,
  type FileIdentity,
  type KeptFiles,
  type PreparedFileWrite,
  unlinkQuietly,
} from '../../workspace/index.js';
import { timingEvent } from './apply-timing.js';
import { removeEmptyDirectories } from './apply-directories.js';
import { RewindConflictError } from './errors/index.js';
import type { PreservedContent } from './journal-restore.js';
import type { PlannedStep } from './rewind-plan.js';
import { describeMismatch } from './rewind-simulation.js';

/**
 * Contents up to this size are written into their temp files on this thread: a write into the
 * page cache costs microseconds, less than the three trips through the thread pool (open, write
 * and mode, close) it replaces, whose answers wait for this thread while it plans and applies —
 * that wait kept a rewind's temp files from their fsyncs for 10 ms and more. Larger ones are
 * written in the pool, so this thread never stalls on one.
 */
export const WRITTEN_HERE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Writes `content` into a temp file beside `target` (see `prepareFileWrite`), at once on this
 * thread when small, else in the thread pool; not fsynced yet. The returned promise settles only
 * after the caller's synchronous code has run, so a caller that begins many writes in one loop and
 * starts each fsync when its promise resolves has written them all before the first fsync — the
 * fsyncs then run together, and on a journaling file system share its commits.
 */
export function beginTempWrite(target: ResolvedPath, content: Buffer, options: AtomicWriteOptions): Promise<PreparedFileWrite> {
  timingEvent('temp-issued');
  if (content.length > WRITTEN_HERE_MAX_BYTES)
    return prepareFileWriteInPool(target, content, options).then((write) => {
      timingEvent('temp-written');
      return write;
    });
  try {
    const write = prepareFileWrite(target, content, options);
    timingEvent('temp-written');
    return Promise.resolve(write);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Writes a step's new content into a temp file beside it (`beginTempWrite`) and fsyncs it in the
 * thread pool, recording it in `prepared`, or takes over the write `begun` for it while it was
 * planned. A write not possible yet (its directory is missing, or is a file an earlier step
 * removes …) is left to the step.
 */
export async function prepareStep(
  step: PlannedStep,
  durable: boolean,
  prepared: Map<PlannedStep, PreparedFileWrite>,
  begun?: Promise<PreparedFileWrite | null>,
  kept?: KeptFiles,
): Promise<void> {
  if (begun) {
    // Begun while the step was planned (see `EarlyWrites`): null when it could not be made there.
    const write = await begun;
    if (write === null) return;
    prepared.set(step, write);
    await write.sync();
    return;
  }
  let write: PreparedFileWrite;
  try {
    // A file an earlier rewind replaced that holds this very content, already durable.
    const reused =
      step.target.mode === null || step.target.hash === null ? null : (kept?.take(step.resolved, step.target.hash, step.target.mode, durable) ?? null);
    if (reused !== null) {
      prepared.set(step, reused);
      return;
    }
    // No directory is created before the journal is durable: a write into a missing one is
    // prepared later, in turn.
    write = await beginTempWrite(step.resolved, step.target.content!, {
      ...(step.target.mode === null ? {} : { mode: step.target.mode }),
      durable,
      createParents: false,
    });
  } catch (error) {
    if (!(error instanceof FileWriteFailedError)) throw error;
    return;
  }
  prepared.set(step, write);
  timingEvent('temp-sync-begun');
  await write.sync();
  timingEvent('temp-synced');
}

/**
 * One step: the path is compared against its expected content and replaced in one step
 * (`replaceIf`): a write renames nothing over a file someone saved an instant before, a delete
 * removes only the expected file. Its directory goes into `directories`, to be fsynced with the
 * others. A file that moved back is simply written at its old path (its content is known), and the
 * step of the path it came from deletes it there. Returns the write it put in place, if any.
 */
export function executeStep(
  step: PlannedStep,
  durable: boolean,
  prepared: PreparedFileWrite | null,
  directories: Set<string>,
  touched: Set<string>,
  displaced: Array<DisplacedFile & { path: string }>,
  raced: PreservedContent[],
  source: PlannedStep | undefined,
  taken: TakenFile[],
): PreparedFileWrite | null {
  const wasTouched = touched.has(step.path);
  if (source !== undefined && prepared === null) {
    // A move back: the file itself is renamed back when it still holds what the agent moved;
    // otherwise its content is written here and the step of its current path deletes it there.
    touched.add(step.path);
    touched.add(source.path);
    const moved = moveIf(
      source.resolved,
      step.resolved,
      (held) => holds(held, step.target.hash, step.target.mode) && (step.target.mode === null || (held.exists && sameMode(held.mode, step.target.mode))),
    );
    for (const directory of moved.directories) directories.add(directory);
    if (!moved.moved && moved.displaced) displaced.push({ path: source.path, ...moved.displaced });
    if (moved.moved) return null;
    if (!wasTouched) touched.delete(step.path);
    touched.delete(source.path);
  }
  if (step.replacesDirectories) {
    touched.add(step.path);
    // The files the steps before took out of these directories go first, or they would not be empty.
    for (const file of taken.splice(0)) unlinkQuietly(file.path);
    removeEmptyDirectories(step, directories);
  }
  const write = step.target.exists
    ? (prepared ??
      prepareFileWrite(step.resolved, step.target.content!, { ...(step.target.mode === null ? {} : { mode: step.target.mode }), durable, createParents: true }))
    : null;
  touched.add(step.path);
  // A large file read for the plan and unchanged since (same inode, size and times) is not read again.
  const outcome = replaceIf(step.resolved, (held) => holds(held, step.expected.hash, step.expected.mode), write, {
    keepTaken: true,
    known: step.expected.known ?? null,
  });
  directories.add(outcome.directory);
  if (outcome.replaced && outcome.taken !== null) {
    // A file this process wrote durably, taken unchanged: its content is the known one, and it may be kept for reuse.
    const known = outcome.takenKnown !== null && step.expected.known?.durable === true && step.expected.hash !== null ? outcome.takenKnown : null;
    taken.push({ path: outcome.taken, keep: known ? { hash: step.expected.hash!, known, rootDir: step.resolved.root.realDir } : null });
  }
  if (outcome.displaced) displaced.push({ path: step.path, ...outcome.displaced });
  // Taken off the path, and someone wrote the path before the new content went in: theirs stays,
  // and the content taken (kept in the store before any file changed) is kept aside on record.
  if (!outcome.replaced && outcome.reason === 'raced' && step.expected.hash !== null)
    raced.push({ path: step.path, hash: step.expected.hash, mode: step.expected.mode });
  if (outcome.replaced) return write;
  write?.abort();
  if (outcome.reason === 'not_a_file') {
    touched.delete(step.path);
    throw new RewindConflictError({
      files: [{ path: step.path, status: 'file_read_failed', reason: 'it is now a directory; only files and symbolic links are rewound' }],
    });
  }
  const current = outcome.current;
  const currentHash = current.exists ? hashContent(current.content) : null;
  const modeDone = !step.target.exists || step.target.mode === null || (current.exists && sameMode(current.mode, step.target.mode));
  // Already there (a redo that finds the file as asked): nothing to change, nothing to put back.
  if (outcome.reason === 'refused' && holds(current, step.target.hash, step.target.mode) && modeDone) {
    if (!wasTouched) touched.delete(step.path);
    return null;
  }
  if (outcome.reason === 'refused' && !wasTouched) touched.delete(step.path);
  throw new RewindConflictError({
    files: [
      {
        path: step.path,
        status: 'external_modified',
        reason: `${describeMismatch(outcome.reason === 'raced' ? null : currentHash, step.expected.hash, current.exists ? current.mode : null, step.expected.mode)} while the rewind was being applied`,
      },
    ],
  });
}

/** A replaced file still under the hidden name `replaceIf` took it to; `keep`: what lets {@link KeptFiles} keep it. */
export interface TakenFile {
  path: string;
  keep: { hash: string; known: FileIdentity; rootDir: string } | null;
}

/**
 * Removes the files `replaceIf` left under hidden names, all at once in the thread pool — but one
 * `kept` can keep (a file this process wrote durably, unchanged) goes there instead, for a later
 * rewind that puts the same content back to link into place.
 */
export async function removeTaken(taken: TakenFile[], kept?: KeptFiles): Promise<void> {
  const files = taken.splice(0);
  const paths = files
    .filter((file) => !(kept && file.keep && kept.keep(file.path, file.keep.hash, file.keep.known, file.keep.rootDir)))
    .map((file) => file.path);
  await Promise.all(paths.map((path) => unlink(path).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)))));
}

/** Whether the entry taken holds `hash` as the same kind (a link's text is not a file's bytes). */
function holds(held: HeldFile, hash: string | null, mode: number | null): boolean {
  return held.exists ? hash !== null && (held.hash ?? hashContent(held.content)) === hash && isLinkMode(held.mode) === isLinkMode(mode) : hash === null;
}
