import { lstatSync, readFileSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError } from '../model/errors/index.js';
import { fsyncDirectory, prepareDirectory, writeFileAtomic } from './atomic-write.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { PathProtectedError } from './path-protected-error.js';
import type { ResolvedPath } from './resolve-path.js';

export interface MoveOptions {
  /** Replace an existing destination. Default false: an existing destination is refused. */
  overwrite?: boolean;
  /** Create the destination's missing parent directories (inside its root). Default true. */
  createParents?: boolean;
  durable?: boolean;
}

/**
 * Renames or moves a file, symlink or directory entry with one atomic `rename`, fsyncing both
 * directories. Across filesystems (`EXDEV`, e.g. between two roots on different disks) a file or
 * symlink is copied atomically to the destination, then the source is removed; directories are
 * refused there. Both paths must already be confined (see `Workspace.resolve`); a directory holding
 * a protected path is refused with `PATH_PROTECTED` on either side.
 *
 * @example
 * movePath(workspace.resolve('draft.md'), workspace.resolve('docs/final.md'))
 */
export function movePath(from: ResolvedPath, to: ResolvedPath, options: MoveOptions = {}): void {
  if (from.relativePath === '' || to.relativePath === '') {
    throw new InvalidArgumentError({ parameter: 'path', value: from.relativePath === '' ? from.key : to.key, reason: 'is a root directory itself' });
  }
  for (const side of [from, to]) {
    if (side.containsProtected !== null) {
      throw new PathProtectedError({ path: side.key, root: side.root.name, protectedPath: side.containsProtected, operation: 'move' });
    }
  }
  const durable = options.durable ?? true;
  const fail = (error: unknown): never => {
    throw new FileWriteFailedError({ path: `${from.key} -> ${to.key}`, operation: 'move', reason: errorReason(error), cause: error });
  };
  let sourceIsDirectory = false;
  try {
    sourceIsDirectory = lstatSync(from.entryPath).isDirectory();
  } catch (error) {
    fail(error);
  }
  if (!options.overwrite) {
    let exists = true;
    try {
      lstatSync(to.entryPath);
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) fail(error);
      exists = false;
    }
    if (exists) fail(Object.assign(new Error('destination exists'), { code: 'EEXIST' }));
  }
  const fromDirectory = prepareDirectory(from, dirname(from.entryPath), false, 'move');
  const toDirectory = prepareDirectory(to, dirname(to.entryPath), options.createParents ?? true, 'move');
  try {
    renameSync(from.entryPath, to.entryPath);
  } catch (error) {
    if (!hasErrorCode(error, 'EXDEV') || sourceIsDirectory) fail(error);
    copyAcrossDevices(from, to, durable);
    return;
  }
  if (durable) {
    fsyncDirectory(toDirectory);
    if (fromDirectory !== toDirectory) fsyncDirectory(fromDirectory);
  }
}

function copyAcrossDevices(from: ResolvedPath, to: ResolvedPath, durable: boolean): void {
  try {
    const stats = lstatSync(from.entryPath);
    if (stats.isSymbolicLink()) {
      const temp = `${to.entryPath}.wp-link-tmp`;
      symlinkSync(readlinkSync(from.entryPath, { encoding: 'buffer' }), temp);
      renameSync(temp, to.entryPath);
    } else {
      writeFileAtomic(to, readFileSync(from.entryPath), { mode: stats.mode & 0o7777, durable });
    }
    unlinkSync(from.entryPath);
    if (durable) fsyncDirectory(dirname(from.entryPath));
  } catch (error) {
    if (error instanceof FileWriteFailedError) throw error;
    throw new FileWriteFailedError({ path: `${from.key} -> ${to.key}`, operation: 'move', reason: errorReason(error), cause: error });
  }
}
