import { execFileSync } from 'node:child_process';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { InvalidArgumentError, WaypointError } from '../model/errors/index.js';
import { fsyncDirectory } from './atomic-write.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { checkMaterializeTarget, createDirectories, removeStaleStaging, stagingPathFor } from './materialize-target.js';
import { resolveInRoot } from './resolve-path.js';
import { createWorkspaceRoot } from './workspace-root.js';

/** One file of a tree to materialize. */
export interface MaterializeFile {
  /** Relative to the target directory, `/`-separated. */
  path: string;
  /** Permission bits, applied exactly (the umask does not apply). */
  mode: number;
  /**
   * The bytes (for a symlink: the link text), or a function producing them when needed; or
   * `{ copyFrom }`, a regular file to copy (streamed, any size, holes kept as holes).
   */
  content: Buffer | (() => Buffer) | { copyFrom: string };
  /** Default `'file'`. */
  kind?: 'file' | 'symlink';
}

export interface MaterializeOptions {
  /** Called after each file with how many are done out of how many. */
  onProgress?: (done: number, total: number) => void;
  /** fsync every file. Default true. */
  durable?: boolean;
}

export interface MaterializeResult {
  dir: string;
  files: number;
  bytes: number;
}

/**
 * Writes a tree of files into a new directory `targetDir` (for an isolated fork). The tree is built
 * in a hidden sibling directory and renamed into place at the end, so `targetDir` appears complete
 * or not at all; on failure the partial tree is removed. Every path is confined to the new
 * directory (`..`, absolute paths and paths through a symlink the tree itself created that points
 * outside are refused with `PATH_OUTSIDE_WORKSPACE`). `targetDir` must not exist or be empty.
 * A target that cannot be created — on `/proc`, `/sys` or another pseudo file system, read-only,
 * not writable, below a regular file — is refused before anything is written
 * (`DIRECTORY_UNUSABLE`). Staging directories that crashed or killed materializations left in the
 * same parent are removed first (only those whose process is dead).
 *
 * @example
 * materializeTree('/tmp/fork-1', files.map((file) => ({ path: file.path, mode: file.mode, content: () => blobs.getSync(file.hash) })),
 *   { onProgress: (done, total) => bar.update(done / total) })
 */
export function materializeTree(targetDir: string, files: readonly MaterializeFile[], options: MaterializeOptions = {}): MaterializeResult {
  if (typeof targetDir !== 'string' || !isAbsolute(targetDir)) {
    throw new InvalidArgumentError({ parameter: 'targetDir', value: targetDir, reason: 'must be an absolute directory path' });
  }
  const target = resolve(targetDir);
  checkMaterializeTarget(target);
  assertFreshTarget(target);
  const parent = dirname(target);
  createDirectories(parent, target);
  removeStaleStaging(parent);
  const staging = stagingPathFor(target);
  try {
    mkdirSync(staging, { mode: 0o755 });
  } catch (error) {
    throw new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
  }
  const root = createWorkspaceRoot({ name: 'materialize', dir: staging, kind: 'workspace' });
  const exclusions = { dirs: [], names: new Set<string>() };
  const durable = options.durable ?? true;
  let bytes = 0;
  try {
    files.forEach((file, index) => {
      const resolved = resolveInRoot(root, file.path, exclusions);
      if (resolved.relativePath === '') {
        throw new InvalidArgumentError({ parameter: 'files.path', value: file.path, reason: 'names the target directory itself' });
      }
      mkdirSync(dirname(resolved.realPath), { recursive: true });
      if (!Buffer.isBuffer(file.content) && typeof file.content === 'object') {
        bytes += copyNewFile(file.content.copyFrom, resolved.realPath, file.mode);
      } else {
        const content = typeof file.content === 'function' ? file.content() : file.content;
        // A link's text is kept byte for byte (it need not be UTF-8) and never resolved.
        if ((file.kind ?? 'file') === 'symlink') symlinkSync(content, resolved.realPath);
        else writeNewFile(resolved.realPath, content, file.mode);
        bytes += content.length;
      }
      options.onProgress?.(index + 1, files.length);
    });
    // One flush for the whole tree instead of an fsync per file: a fresh tree has no old content
    // to protect mid-way, only the end state must be durable before anyone relies on it.
    if (durable) syncTree(staging);
    renameSync(staging, target);
    if (durable) fsyncDirectory(parent);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (error instanceof WaypointError) throw error;
    throw new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
  }
  return { dir: target, files: files.length, bytes };
}

function writeNewFile(path: string, content: Buffer, mode: number): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    let offset = 0;
    while (offset < content.length) offset += writeSync(fd, content, offset, content.length - offset);
    fchmodSync(fd, mode & 0o7777);
  } finally {
    closeSync(fd);
  }
}

const COPY_CHUNK_BYTES = 1024 * 1024;

/**
 * Copies the regular file `source` into a new file `path` in chunks (no whole-file buffer, so any
 * size), leaving all-zero chunks as holes so a sparse file stays sparse; returns its size.
 */
export function copyNewFile(source: string, path: string, mode: number): number {
  const input = openSync(source, 'r');
  try {
    const output = openSync(path, 'wx', 0o600);
    try {
      const chunk = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
      const zeros = Buffer.alloc(COPY_CHUNK_BYTES);
      let size = 0;
      for (;;) {
        const read = readSync(input, chunk, 0, COPY_CHUNK_BYTES, size);
        if (read === 0) break;
        const data = chunk.subarray(0, read);
        if (!data.equals(zeros.subarray(0, read))) {
          let offset = 0;
          while (offset < read) offset += writeSync(output, data, offset, read - offset, size + offset);
        }
        size += read;
      }
      ftruncateSync(output, size);
      fchmodSync(output, mode & 0o7777);
      return size;
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

/**
 * Makes everything written under `dir` durable: `sync -f` (syncfs of the file system holding it,
 * one call), or where that is unavailable, an fsync of every file and directory in the tree.
 */
function syncTree(dir: string): void {
  try {
    execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
    return;
  } catch {
    // no coreutils `sync -f` here: fall back to fsyncing each entry
  }
  fsyncTreeEntries(dir);
}

/** Fsyncs every regular file and directory under `dir` (and `dir`): durability where `sync -f` is missing. */
export function fsyncTreeEntries(dir: string): void {
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) fsyncPath(child);
    }
    fsyncDirectory(path);
  };
  walk(dir);
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function assertFreshTarget(target: string): void {
  try {
    const stats = lstatSync(target);
    if (stats.isDirectory() && readdirSync(target).length === 0) return;
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return;
    throw new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
  }
  throw new InvalidArgumentError({
    code: 'MATERIALIZE_TARGET_NOT_EMPTY',
    parameter: 'targetDir',
    value: target,
    reason: 'already exists and is not an empty directory; choose a new directory for the materialized tree',
  });
}
