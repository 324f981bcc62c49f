import { accessSync, constants, lstatSync, mkdirSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { isProcessAlive } from '../model/index.js';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { NameTooLongError, UnusableDirectoryError } from '../model/errors/index.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';

/**
 * Kernel pseudo file systems by their `statfs` magic number: they hold no ordinary files, and
 * some of them (procfs) answer a recursive `mkdir` so that it never returns.
 */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0x19800202, 'mqueue'],
]);

/** `.<name>.<pid>.<12 hex>.wp-partial`: the hidden directory a tree is built in before its rename. */
const STAGING = /^\..*\.(\d+)\.[0-9a-f]{12}\.wp-partial$/;
/** Bytes of the target's name kept in its staging directory's name (a name may have 255 in all). */
const STAGING_NAME_BYTES = 180;

/**
 * Refuses, before anything is created, a target directory that cannot be made: a name too long,
 * a regular file along its path, a pseudo file system (`/proc`, `/sys` …), a read-only mount or
 * a directory this user may not write. Checks the deepest part of the path that exists.
 */
export function checkMaterializeTarget(target: string): void {
  const tooLong = NameTooLongError.check(target);
  if (tooLong) throw tooLong;
  let existing = dirname(target);
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT', 'ENOTDIR'))
        throw new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
      existing = dirname(existing);
    }
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(existing).isDirectory();
  } catch {
    // A dangling link: not a directory either.
  }
  if (!isDirectory) throw new UnusableDirectoryError({ path: target, reason: 'not_a_directory', blocker: existing });
  const filesystem = PSEUDO_FILESYSTEMS.get(statfsSync(existing).type);
  if (filesystem !== undefined) throw new UnusableDirectoryError({ path: target, reason: 'special_filesystem', blocker: existing, filesystem });
  try {
    accessSync(existing, constants.W_OK);
  } catch (error) {
    const reason = hasErrorCode(error, 'EROFS') ? 'read_only_filesystem' : 'not_writable';
    throw new UnusableDirectoryError({ path: target, reason, blocker: existing, cause: error });
  }
}

/**
 * Creates `dir` and its missing ancestors one level at a time (a recursive `mkdir` can loop on
 * file systems that answer oddly), raising typed errors for what is in the way.
 */
export function createDirectories(dir: string, target: string): void {
  const missing: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    try {
      if (statSync(current).isDirectory()) break;
      throw new UnusableDirectoryError({ path: target, reason: 'not_a_directory', blocker: current });
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw mkdirError(error, target, current);
      if (dirname(current) === current) break;
      missing.unshift(current);
    }
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      if (hasErrorCode(error, 'EEXIST') && statSync(path).isDirectory()) continue;
      throw mkdirError(error, target, path);
    }
  }
}

function mkdirError(error: unknown, target: string, at: string): Error {
  if (error instanceof UnusableDirectoryError || error instanceof FileWriteFailedError) return error;
  if (hasErrorCode(error, 'EACCES', 'EPERM')) return new UnusableDirectoryError({ path: target, reason: 'not_writable', blocker: at, cause: error });
  if (hasErrorCode(error, 'EROFS')) return new UnusableDirectoryError({ path: target, reason: 'read_only_filesystem', blocker: at, cause: error });
  if (hasErrorCode(error, 'ENOTDIR', 'EEXIST')) return new UnusableDirectoryError({ path: target, reason: 'not_a_directory', blocker: at, cause: error });
  return new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
}

/** The staging directory for `target`, beside it: named after it (bounded), this process and a random tag. */
export function stagingPathFor(target: string): string {
  return join(dirname(target), `.${truncateBytes(basename(target), STAGING_NAME_BYTES)}.${process.pid}.${randomBytes(6).toString('hex')}.wp-partial`);
}

/**
 * Removes the staging directories in `parent` left by materializations whose process is gone (a
 * crash or a kill mid-fork). A staging directory of a live process — this one included — is left
 * alone; a reused pid looks alive, which only delays the cleanup. Returns the paths removed.
 */
export function removeStaleStaging(parent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = STAGING.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    const path = join(parent, name);
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Left for the next materialization into this directory.
    }
  }
  return removed;
}

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  let bytes = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character);
    if (bytes + size > max) break;
    out += character;
    bytes += size;
  }
  return out;
}
