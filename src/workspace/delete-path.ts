import { lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError } from '../model/errors/index.js';
import { prepareDirectory, fsyncDirectory } from './atomic-write.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { PathProtectedError } from './path-protected-error.js';
import type { FileKind } from './file-state.js';
import type { ResolvedPath } from './resolve-path.js';

/** What {@link deletePath} found and removed. */
export type DeleteResult = { existed: false } | { existed: true; kind: FileKind };

/**
 * Removes a file, a symlink (the link, not what it points to) or an empty directory with one
 * atomic unlink/rmdir, then fsyncs the directory. A path that is already gone is not an error
 * (`existed: false`), so repeating a rollback is harmless. Non-empty directories are refused
 * (`FILE_WRITE_FAILED`, `ENOTEMPTY`): their content would have no snapshot. A directory holding a
 * protected path is refused with `PATH_PROTECTED` before anything is removed.
 */
export function deletePath(target: ResolvedPath, options: { durable?: boolean } = {}): DeleteResult {
  if (target.relativePath === '') {
    throw new InvalidArgumentError({ parameter: 'path', value: target.key, reason: 'is the root directory itself' });
  }
  if (target.containsProtected !== null) {
    throw new PathProtectedError({ path: target.key, root: target.root.name, protectedPath: target.containsProtected, operation: 'delete' });
  }
  let kind: FileKind;
  try {
    const stats = lstatSync(target.entryPath);
    kind = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : 'file';
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return { existed: false };
    throw new FileWriteFailedError({ path: target.key, operation: 'delete', reason: errorReason(error), cause: error });
  }
  const directory = prepareDirectory(target, dirname(target.entryPath), false, 'delete');
  try {
    if (kind === 'dir') rmdirSync(target.entryPath);
    else unlinkSync(target.entryPath);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return { existed: false };
    throw new FileWriteFailedError({ path: target.key, operation: 'delete', reason: errorReason(error), cause: error });
  }
  if (options.durable ?? true) fsyncDirectory(directory);
  return { existed: true, kind };
}
