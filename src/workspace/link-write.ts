import { lstatSync, renameSync, symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InvalidArgumentError } from '../model/errors/index.js';
import { fsyncDirectory, installIfAbsent, prepareDirectory, TEMP_SUFFIX, type AtomicWriteResult, type PreparedFileWrite } from './atomic-write.js';
import { HIDDEN_NAME_KEPT, tempId } from './temp-id.js';
import { errorReason } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { LINK_MODE } from './link-mode.js';
import type { ResolvedPath } from './resolve-path.js';
import { unlinkQuietly } from './quiet-unlink.js';

/**
 * A symbolic link whose target text is `text`, made at a temp name beside `target`'s entry
 * (`.<name>.<12 hex>.wp-tmp`) and renamed over the entry on `commit` — the same phases as
 * `prepareFileWrite`, which hands link modes here. The entry itself is replaced, never what a
 * link there points to, and the text is kept verbatim (relative, absolute or dangling: it is
 * never resolved, so where it points needs no confinement — every later read or write through it
 * is confined when it is resolved). The link's permission bits are the system's (`0o777`).
 */
export function prepareLinkWrite(
  target: ResolvedPath,
  text: Uint8Array | string,
  options: { durable?: boolean; createParents?: boolean; tempId?: string } = {},
): PreparedFileWrite {
  if (target.relativePath === '') {
    throw new InvalidArgumentError({ parameter: 'path', value: target.key, reason: 'is the root directory itself, not a file' });
  }
  const bytes = typeof text === 'string' ? Buffer.from(text) : Buffer.from(text);
  if (bytes.length === 0 || bytes.includes(0)) {
    throw new InvalidArgumentError({ parameter: 'content', value: target.key, reason: 'a link target must be non-empty text without NUL bytes' });
  }
  const durable = options.durable ?? true;
  const directory = prepareDirectory(target, dirname(target.entryPath), options.createParents ?? true, 'write');
  const destination = join(directory, basename(target.entryPath));
  const temp = join(directory, `.${basename(destination).slice(0, HIDDEN_NAME_KEPT)}.${options.tempId ?? tempId()}${TEMP_SUFFIX}`);
  const fail = (error: unknown): FileWriteFailedError =>
    error instanceof FileWriteFailedError
      ? error
      : new FileWriteFailedError({ path: target.key, operation: 'write', reason: errorReason(error), cause: error });
  try {
    symlinkSync(bytes, temp);
  } catch (error) {
    throw fail(error);
  }
  const mode = LINK_MODE | (lstatSync(temp).mode & 0o7777);
  let state: 'written' | 'committed' | 'aborted' = 'written';
  const finish = (commitOptions: { syncDirectory?: boolean }, ifAbsent: boolean): AtomicWriteResult | null => {
    if (state !== 'written') {
      throw new FileWriteFailedError({ path: target.key, operation: 'write', reason: `this prepared write was already ${state}` });
    }
    try {
      if (ifAbsent) {
        if (!installIfAbsent(temp, destination)) return null;
        unlinkQuietly(temp);
      } else {
        renameSync(temp, destination);
      }
      state = 'committed';
    } catch (error) {
      state = 'aborted';
      unlinkQuietly(temp);
      throw fail(error);
    }
    // A link's text lives in its directory entry and inode: the directory's fsync makes it durable.
    if (durable && (commitOptions.syncDirectory ?? true)) {
      try {
        fsyncDirectory(directory);
      } catch (error) {
        throw fail(error);
      }
    }
    return { size: bytes.length, mode };
  };
  return {
    target,
    directory,
    size: bytes.length,
    mode,
    written: null,
    sync: () => Promise.resolve(),
    commit: (commitOptions = {}) => finish(commitOptions, false)!,
    commitIfAbsent: (commitOptions = {}) => finish(commitOptions, true),
    abort() {
      if (state !== 'written') return;
      state = 'aborted';
      unlinkQuietly(temp);
    },
  };
}
