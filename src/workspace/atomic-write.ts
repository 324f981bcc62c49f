import {
  closeSync,
  fchmod,
  fchmodSync,
  fchown,
  fchownSync,
  fstatSync,
  fsync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  open,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  symlinkSync,
  write,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { InvalidArgumentError } from '../model/errors/index.js';
import { HIDDEN_NAME_KEPT, tempId } from './temp-id.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError, type FileWriteOperation } from './file-write-failed-error.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { isLinkMode } from './link-mode.js';
import { prepareLinkWrite } from './link-write.js';
import { isInside } from './real-path.js';
import type { WrittenIdentity } from './written-stamps.js';
import { linkAlongDirectory, refuseProtectedDirectory, type EntryStat, type ResolvedPath } from './resolve-path.js';
import { unlinkQuietly } from './quiet-unlink.js';

/** The suffix of the temp files atomic writes rename into place (`.<name>.<12 hex>.wp-tmp`). */
export const TEMP_SUFFIX = '.wp-tmp';
/**
 * An atomic write's temp file or a compare-and-replace's parked file: Waypoint's own, in flight or
 * left by a crash; never user content (scans pass over it). Groups: the target's name (cut, see
 * `HIDDEN_NAME_KEPT`), then `tmp` or `old`.
 */
export const TEMP_FILE_PATTERN = /^\.(.+)\.[0-9a-f]{12}\.wp-(tmp|old)$/;
/** The suffix of the name a compare-and-replace parks a path's previous file under (see `replaceIf`). */
export const BACKUP_SUFFIX = '.wp-old';

export interface AtomicWriteOptions {
  /**
   * Permission bits to give the file. Default: the existing file's, else `0o666` less the umask.
   * A link mode (`LINK_MODE | bits`, as checkpoints record links) writes a symbolic link whose
   * target text is the content instead (see `prepareLinkWrite`).
   */
  mode?: number;
  /** Create missing parent directories (inside the root only). Default true. */
  createParents?: boolean;
  /** fsync the file and its directory. Default true; turn off only for scratch data. */
  durable?: boolean;
  /** The 12 hex digits naming the temp file (see {@link tempPathOf}), so a caller can record it before it exists. Default random. */
  tempId?: string;
  /**
   * The entry's lstat as the caller's `resolveEntryInRoot` took it in this same synchronous run
   * (null: nothing there). For a lexical target with no link along its directory, written with
   * `createParents: false` (a directory made here was never resolved), the write then takes neither
   * the directory's real path nor the entry's lstat a second time.
   */
  resolvedEntry?: EntryStat;
}

/** The temp file an atomic write of `target` with `tempId` uses: `.<name>.<tempId>.wp-tmp` beside it. */
export function tempPathOf(target: ResolvedPath, tempId: string): string {
  return join(dirname(target.realPath), `.${basename(target.realPath).slice(0, HIDDEN_NAME_KEPT)}.${tempId}${TEMP_SUFFIX}`);
}

/** What {@link writeFileAtomic} wrote. */
export interface AtomicWriteResult {
  size: number;
  mode: number;
}

/**
 * Replaces a file's content atomically: a temp file in the same directory is written,
 * fsynced and renamed over the target, then the directory is fsynced, so a reader or a crash sees
 * the old bytes or the new ones, never a mix. The existing file's mode (and, when running as root,
 * owner) is kept unless `mode` is given; a symlink at the path is followed (the link stays a link).
 * On failure the temp file is removed and {@link FileWriteFailedError} is thrown.
 *
 * {@link prepareFileWrite} is the same write in phases, for callers that overlap the fsync with
 * other work.
 *
 * @example
 * writeFileAtomic(workspace.resolve('bin/run.sh'), Buffer.from('#!/bin/sh\n'), { mode: 0o755 })
 */
export function writeFileAtomic(target: ResolvedPath, content: Uint8Array | string, options: AtomicWriteOptions = {}): AtomicWriteResult {
  return prepareFileWrite(target, content, options).commit();
}

/**
 * An atomic write whose temp file is written but not yet renamed into place (see
 * {@link prepareFileWrite}). The target is untouched until `commit`.
 */
export interface PreparedFileWrite {
  readonly target: ResolvedPath;
  /** Real path of the directory the rename happens in (fsync it after `commit({ syncDirectory: false })`). */
  readonly directory: string;
  readonly size: number;
  /** Permission bits the file will have. */
  readonly mode: number;
  /** The temp file's identity and modification time once written (null for a symbolic link): see `writtenStamps`. */
  readonly written: WrittenIdentity | null;
  /**
   * Makes the temp file's bytes durable with an fsync in the libuv thread pool, so it runs while
   * the caller does other work (another fsync, a database commit). Started once; later calls return
   * the same promise. Resolves at once when the write is not durable.
   */
  sync(): Promise<void>;
  /**
   * Renames the temp file over the target. The bytes are made durable first when `sync` has not
   * completed (an fsync on this thread), so a commit is never ahead of its data. The directory is
   * then fsynced unless `syncDirectory` is false, in which case the caller must fsync `directory`
   * (see {@link fsyncDirectories}) before relying on the rename surviving a power loss.
   */
  commit(options?: { syncDirectory?: boolean }): AtomicWriteResult;
  /**
   * Like `commit`, but only while nothing is at the target: the temp file is hard-linked to the
   * target name (which fails when the name exists, with no window in between) and then removed.
   * Returns null, the write still pending, when something is there.
   */
  commitIfAbsent(options?: { syncDirectory?: boolean }): AtomicWriteResult | null;
  /** Gives up: removes the temp file; the target is untouched. Harmless after `commit` or twice. */
  abort(): void;
}

/**
 * First half of {@link writeFileAtomic}: checks the target, then writes the content into a temp file
 * beside it (`.<name>.<12 hex>.wp-tmp`) with its final mode and owner, without syncing or renaming
 * it. `sync()` then `commit()` finish the write; `abort()` abandons it. Throws
 * {@link FileWriteFailedError} (nothing left behind) when the temp file cannot be written.
 *
 * @example
 * const write = prepareFileWrite(workspace.resolve('src/a.ts'), next)
 * const synced = write.sync()          // fsync in the thread pool …
 * const stored = storeSomething()      // … while this runs
 * await Promise.all([synced, stored])
 * write.commit()
 */
export function prepareFileWrite(target: ResolvedPath, content: Uint8Array | string, options: AtomicWriteOptions = {}): PreparedFileWrite {
  const plan = planFileWrite(target, content, options);
  if ('prepared' in plan) return plan.prepared;
  let fd: number | undefined;
  let stats: BigIntStats;
  try {
    fd = openSync(plan.temp, 'wx', plan.mode ?? 0o666);
    let offset = 0;
    while (offset < plan.bytes.length) offset += writeSync(fd, plan.bytes, offset, plan.bytes.length - offset);
    // The owner and mode are changed only where the new file does not have them already (a file
    // made with the mode asked for and the umask leaving it whole needs neither call). Owner
    // first: a chown clears the setuid and setgid bits, so the mode is set after it.
    stats = fstatSync(fd, { bigint: true });
    if (plan.owner && process.getuid?.() === 0 && (BigInt(plan.owner.uid) !== stats.uid || BigInt(plan.owner.gid) !== stats.gid)) {
      fchownSync(fd, plan.owner.uid, plan.owner.gid);
      stats = fstatSync(fd, { bigint: true });
    }
    if (plan.mode !== undefined && Number(stats.mode & 0o7777n) !== plan.mode) fchmodSync(fd, plan.mode);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    unlinkQuietly(plan.temp);
    throw plan.fail(error);
  }
  return preparedWrite(plan, fd, stats);
}

/**
 * {@link prepareFileWrite} with the temp file's open, write and mode change made in the libuv
 * thread pool, so many writes proceed at once while this thread does other work. The checks on
 * the target run at once, on this thread; a failure rejects with {@link FileWriteFailedError}
 * (nothing left behind). A link mode is made on this thread, as `prepareFileWrite` makes it.
 */
export async function prepareFileWriteInPool(target: ResolvedPath, content: Uint8Array | string, options: AtomicWriteOptions = {}): Promise<PreparedFileWrite> {
  const plan = planFileWrite(target, content, options);
  if ('prepared' in plan) return plan.prepared;
  let fd: number | undefined;
  let stats: BigIntStats;
  try {
    fd = await pool.open(plan.temp, 'wx', plan.mode ?? 0o666);
    const opened = fd;
    // The bytes, and the owner then the mode (a chown clears the setuid and setgid bits), go in
    // side by side: one trip through the pool less for each file, and every call settled before
    // the descriptor can be closed.
    const settled = await Promise.allSettled([
      (async () => {
        let offset = 0;
        while (offset < plan.bytes.length) offset += await pool.write(opened, plan.bytes, offset, plan.bytes.length - offset);
      })(),
      (async () => {
        if (plan.owner && process.getuid?.() === 0) await pool.fchown(opened, plan.owner.uid, plan.owner.gid);
        if (plan.mode !== undefined) await pool.fchmod(opened, plan.mode);
      })(),
    ]);
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
    stats = fstatSync(fd, { bigint: true });
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    unlinkQuietly(plan.temp);
    throw plan.fail(error);
  }
  return preparedWrite(plan, fd, stats);
}

/** The callback forms of the calls above, as promises on raw descriptors (a `FileHandle` would close itself when collected). */
const pool = {
  open: promisify(open),
  write: (fd: number, bytes: Uint8Array, offset: number, length: number) =>
    new Promise<number>((resolve, reject) => write(fd, bytes, offset, length, null, (error, written) => (error ? reject(error) : resolve(written)))),
  fchown: promisify(fchown),
  fchmod: promisify(fchmod),
};

/** What a file write checked and chose before its temp file exists. */
interface FileWritePlan {
  target: ResolvedPath;
  bytes: Uint8Array;
  durable: boolean;
  directory: string;
  destination: string;
  temp: string;
  mode: number | undefined;
  owner: { uid: number; gid: number } | undefined;
  fail: (error: unknown) => FileWriteFailedError;
}

/** The checks both preparations share, and the choices they make (mode, owner, temp name); a link is prepared here at once. */
function planFileWrite(target: ResolvedPath, content: Uint8Array | string, options: AtomicWriteOptions): FileWritePlan | { prepared: PreparedFileWrite } {
  if (target.relativePath === '') {
    throw new InvalidArgumentError({ parameter: 'path', value: target.key, reason: 'is the root directory itself, not a file' });
  }
  if (isLinkMode(options.mode) && Number.isInteger(options.mode) && options.mode! <= 0o120000 + 0o7777) {
    return {
      prepared: prepareLinkWrite(target, content, {
        ...(options.durable === undefined ? {} : { durable: options.durable }),
        ...(options.createParents === undefined ? {} : { createParents: options.createParents }),
        ...(options.tempId === undefined ? {} : { tempId: options.tempId }),
      }),
    };
  }
  if (options.mode !== undefined && (!Number.isInteger(options.mode) || options.mode < 0 || options.mode > 0o7777)) {
    throw new InvalidArgumentError({ parameter: 'mode', value: options.mode, reason: 'must be permission bits between 0 and 0o7777' });
  }
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const durable = options.durable ?? true;
  const destination = target.realPath;
  // Resolved an instant ago with its directory found real (see `resolvedEntry`): checking again would find the same.
  const fresh = options.resolvedEntry !== undefined && target.lexical === true && target.linkInPath === null && options.createParents === false;
  const directory = prepareDirectory(target, dirname(destination), options.createParents ?? true, 'write', fresh);
  const fail = (error: unknown): FileWriteFailedError =>
    error instanceof FileWriteFailedError
      ? error
      : new FileWriteFailedError({ path: target.key, operation: 'write', reason: errorReason(error), cause: error });

  let mode = options.mode;
  let owner: { uid: number; gid: number } | undefined;
  try {
    // `destination` is the real path, so an entry there is a link only when the caller asked for
    // the entry itself (a rewind replacing a link with a file): its owner carries over, not its bits.
    const existing = fresh ? options.resolvedEntry : lstatSync(destination);
    if (existing) {
      if (!existing.isSymbolicLink()) mode ??= existing.mode & 0o7777;
      owner = { uid: existing.uid, gid: existing.gid };
    }
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw fail(error);
  }

  if (options.tempId !== undefined && !/^[0-9a-f]{12}$/.test(options.tempId)) {
    throw new InvalidArgumentError({ parameter: 'tempId', value: options.tempId, reason: 'must be 12 lowercase hex digits' });
  }
  const temp = join(directory, `.${basename(destination).slice(0, HIDDEN_NAME_KEPT)}.${options.tempId ?? tempId()}${TEMP_SUFFIX}`);
  return { target, bytes, durable, directory, destination, temp, mode, owner, fail };
}

/** The prepared write over a temp file written and still open as `fd` (its stat `stats`, taken once written). */
function preparedWrite(plan: FileWritePlan, fd: number, stats: BigIntStats): PreparedFileWrite {
  const { target, bytes, durable, directory, destination, temp, fail } = plan;
  const finalMode = plan.mode ?? Number(stats.mode & 0o7777n);
  let state: 'written' | 'committed' | 'aborted' = 'written';
  let syncing: Promise<void> | null = null;
  /** True while an fsync runs in the thread pool: the descriptor must stay open until it returns. */
  let inFlight = false;
  let synced = !durable;
  let syncError: unknown = null;
  let closed = false;
  const openFd = fd;
  // Never close a descriptor an fsync in the thread pool still uses (the number could be reused
  // meanwhile): the fsync callback closes it once it returns.
  const release = () => {
    if (closed || inFlight) return;
    closed = true;
    closeQuietly(openFd);
  };
  const abortNow = () => {
    state = 'aborted';
    unlinkQuietly(temp);
    release();
  };
  const finish = (commitOptions: { syncDirectory?: boolean }, ifAbsent: boolean): AtomicWriteResult | null => {
    if (state !== 'written') {
      throw new FileWriteFailedError({ path: target.key, operation: 'write', reason: `this prepared write was already ${state}` });
    }
    try {
      if (syncError !== null) throw syncError;
      // Not synced yet (never asked, or still running in the pool): fsync here, on this thread.
      if (!synced) fsyncSync(openFd);
      synced = true;
      if (ifAbsent) {
        if (!installIfAbsent(temp, destination)) return null;
        unlinkQuietly(temp);
      } else {
        renameSync(temp, destination);
      }
      state = 'committed';
      release();
    } catch (error) {
      abortNow();
      throw fail(error);
    }
    if (durable && (commitOptions.syncDirectory ?? true)) {
      try {
        fsyncDirectory(directory);
      } catch (error) {
        throw fail(error);
      }
    }
    return { size: bytes.length, mode: finalMode };
  };
  return {
    target,
    directory,
    size: bytes.length,
    mode: finalMode,
    written: { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs },
    sync() {
      if (syncing) return syncing;
      if (synced || state !== 'written') return (syncing = Promise.resolve());
      inFlight = true;
      syncing = new Promise<void>((resolve, reject) => {
        fsync(openFd, (error) => {
          inFlight = false;
          if (error) syncError ??= error;
          else synced = true;
          if (state !== 'written') release();
          if (error) reject(fail(error));
          else resolve();
        });
      });
      return syncing;
    },
    commit(commitOptions = {}) {
      return finish(commitOptions, false)!;
    },
    commitIfAbsent(commitOptions = {}) {
      return finish(commitOptions, true);
    },
    abort() {
      if (state === 'written') abortNow();
    },
  };
}

/**
 * Gives the file at `from` the name `to` only when nothing has that name: a hard link, which fails
 * when the name exists, so a file someone puts there at the same instant is never replaced. `from`
 * keeps its name too (the caller removes it). On a file system without hard links, falls back to
 * a check and a rename. Returns false when something is at `to`.
 */
export function installIfAbsent(from: string, to: string): boolean {
  // Linux hard-links a symbolic link itself; elsewhere `link` may follow it, so a link is made anew.
  if (process.platform !== 'linux' && lstatSync(from).isSymbolicLink()) {
    try {
      symlinkSync(readlinkSync(from, { encoding: 'buffer' }), to);
      return true;
    } catch (error) {
      if (hasErrorCode(error, 'EEXIST')) return false;
      throw error;
    }
  }
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    if (!hasErrorCode(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'EXDEV', 'ENOSYS')) throw error;
  }
  try {
    lstatSync(to);
    return false;
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw error;
  }
  renameSync(from, to);
  return true;
}

/**
 * fsyncs several directories at once in the libuv thread pool (renames and unlinks inside them
 * become durable), each once. Resolves when all are done; rejects with the first failure.
 */
export async function fsyncDirectories(directories: Iterable<string>): Promise<void> {
  const unique = [...new Set(directories)];
  // One directory: an fsync on this thread costs less than a round trip through the pool.
  if (unique.length === 1) return fsyncDirectory(unique[0]!);
  await Promise.all(unique.map((directory) => fsyncPathAsync(directory)));
}

function fsyncPathAsync(path: string): Promise<void> {
  // Opening and closing a directory are cheap: only the fsync goes to the thread pool.
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    fsync(fd, (error) => {
      closeQuietly(fd);
      if (error) reject(error);
      else resolve();
    });
  });
}

/**
 * Makes sure `directory` exists (when asked) and still resolves inside the root — a guard against a
 * directory swapped for a symlink between {@link resolveInRoot} and the write. Returns its real path.
 * `knownReal`: the caller found `directory` to be its own real path in this same synchronous run.
 */
export function prepareDirectory(target: ResolvedPath, directory: string, createParents: boolean, operation: FileWriteOperation, knownReal = false): string {
  // A lexical path (a rewind's) is changed at its own place only, never through a link along it.
  // A directory that is its own real path has no link along it: one realpath instead of an lstat
  // of every directory up to the root, and that realpath serves the containment check below.
  const checkedReal = knownReal ? directory : target.lexical ? ownRealPath(directory) : null;
  const link = target.lexical && checkedReal === null ? linkAlongDirectory(target, directory) : null;
  if (link !== null) {
    throw new FileWriteFailedError({
      path: target.key,
      operation,
      reason: `a symbolic link along it (${link}) would be followed; Waypoint never writes through one`,
    });
  }
  let real: string;
  try {
    if (createParents) mkdirSync(directory, { recursive: true });
    real = checkedReal ?? realpathSync.native(directory);
  } catch (error) {
    throw new FileWriteFailedError({ path: target.key, operation, reason: errorReason(error), cause: error });
  }
  if (!isInside(target.root.realDir, real)) {
    throw new PathOutsideWorkspaceError({ path: target.relativePath, root: target.root.name, reason: 'symlink_escape' });
  }
  refuseProtectedDirectory(target, real);
  return real;
}

/** `directory` when it exists and is its own real path (so no link is along it); else null. */
function ownRealPath(directory: string): string | null {
  try {
    return realpathSync.native(directory) === directory ? directory : null;
  } catch {
    return null;
  }
}

/** fsyncs a directory so a rename or unlink inside it is durable. */
export function fsyncDirectory(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed or invalid: nothing left to release
  }
}
