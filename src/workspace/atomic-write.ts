import { closeSync, fchmodSync, fchownSync, fstatSync, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { InvalidArgumentError } from '../model/errors/index.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError, type FileWriteOperation } from './file-write-failed-error.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { isInside } from './real-path.js';
import type { ResolvedPath } from './resolve-path.js';

export interface AtomicWriteOptions {
  /** Permission bits to give the file. Default: the existing file's, else `0o666` less the umask. */
  mode?: number;
  /** Create missing parent directories (inside the root only). Default true. */
  createParents?: boolean;
  /** fsync the file and its directory. Default true; turn off only for scratch data. */
  durable?: boolean;
}

/** What {@link writeFileAtomic} wrote. */
export interface AtomicWriteResult {
  size: number;
  mode: number;
}

/**
 * Replaces a file's content atomically (invariant 5): a temp file in the same directory is written,
 * fsynced and renamed over the target, then the directory is fsynced, so a reader or a crash sees
 * the old bytes or the new ones, never a mix. The existing file's mode (and, when running as root,
 * owner) is kept unless `mode` is given; a symlink at the path is followed (the link stays a link).
 * On failure the temp file is removed and {@link FileWriteFailedError} is thrown.
 *
 * @example
 * writeFileAtomic(workspace.resolve('bin/run.sh'), Buffer.from('#!/bin/sh\n'), { mode: 0o755 })
 */
export function writeFileAtomic(target: ResolvedPath, content: Uint8Array | string, options: AtomicWriteOptions = {}): AtomicWriteResult {
  if (target.relativePath === '') {
    throw new InvalidArgumentError({ parameter: 'path', value: target.key, reason: 'is the root directory itself, not a file' });
  }
  if (options.mode !== undefined && (!Number.isInteger(options.mode) || options.mode < 0 || options.mode > 0o7777)) {
    throw new InvalidArgumentError({ parameter: 'mode', value: options.mode, reason: 'must be permission bits between 0 and 0o7777' });
  }
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const durable = options.durable ?? true;
  const destination = target.realPath;
  const directory = prepareDirectory(target, dirname(destination), options.createParents ?? true, 'write');

  let mode = options.mode;
  let owner: { uid: number; gid: number } | undefined;
  try {
    const existing = statSync(destination);
    mode ??= existing.mode & 0o7777;
    owner = { uid: existing.uid, gid: existing.gid };
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw new FileWriteFailedError({ path: target.key, operation: 'write', reason: errorReason(error), cause: error });
  }

  const temp = join(directory, `.${basename(destination).slice(0, 180)}.${randomBytes(6).toString('hex')}.wp-tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', mode ?? 0o666);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (mode !== undefined) fchmodSync(fd, mode);
    if (owner && process.getuid?.() === 0) fchownSync(fd, owner.uid, owner.gid);
    const finalMode = mode ?? fstatSync(fd).mode & 0o7777;
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, destination);
    if (durable) fsyncDirectory(directory);
    return { size: bytes.length, mode: finalMode };
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    unlinkQuietly(temp);
    throw new FileWriteFailedError({ path: target.key, operation: 'write', reason: errorReason(error), cause: error });
  }
}

/**
 * Makes sure `directory` exists (when asked) and still resolves inside the root — a guard against a
 * directory swapped for a symlink between {@link resolveInRoot} and the write. Returns its real path.
 */
export function prepareDirectory(target: ResolvedPath, directory: string, createParents: boolean, operation: FileWriteOperation): string {
  let real: string;
  try {
    if (createParents) mkdirSync(directory, { recursive: true });
    real = realpathSync.native(directory);
  } catch (error) {
    throw new FileWriteFailedError({ path: target.key, operation, reason: errorReason(error), cause: error });
  }
  if (!isInside(target.root.realDir, real)) {
    throw new PathOutsideWorkspaceError({ path: target.relativePath, root: target.root.name, reason: 'symlink_escape' });
  }
  return real;
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

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // never created, or already gone
  }
}
