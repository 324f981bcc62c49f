import { lstatSync, readFileSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileReadFailedError } from './file-read-failed-error.js';
import { hashContent } from '../model/index.js';
import type { EntryStat, ResolvedPath } from './resolve-path.js';

export type FileKind = 'file' | 'symlink' | 'dir';

/** A path that exists: its kind, content hash and metadata. */
export interface ExistingFileState {
  exists: true;
  kind: FileKind;
  /** sha256 hex of the bytes (for a symlink: of its target text; null for a directory). */
  hash: string | null;
  /** Bytes of content (link text length for a symlink, 0 for a directory). */
  size: number;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  mtimeMs: number;
  /** The bytes hashed, when asked for with `withContent` (link text for a symlink). */
  content?: Buffer;
  /** Where a symlink points (as stored in the link). */
  linkTarget?: string;
}

/** What reading a path found. */
export type FileState = { exists: false } | ExistingFileState;

export interface ReadFileStateOptions {
  /** Also return the bytes that were hashed (read once either way). */
  withContent?: boolean;
  /** Report the file a symlink points to instead of the link itself. Default false (like lstat). */
  followSymlinks?: boolean;
  /**
   * The lstat of `target.entryPath` taken just now while resolving it (`Workspace.resolveKeyEntry`):
   * used instead of taking another. Ignored with `followSymlinks`, or when undefined.
   */
  entry?: EntryStat;
}

/**
 * Reads the state of a confined path: whether it exists, its kind, sha256 and mode. Symlinks are
 * reported as links by default (their hash is that of the link text, as git stores them).
 * Throws {@link FileReadFailedError} (`FILE_READ_FAILED`) when the path exists but cannot be read or
 * is not a file, link or directory (a socket, a FIFO, a device).
 *
 * @example
 * const state = readFileState(workspace.resolve('src/a.ts'), { withContent: true })
 * if (state.exists && state.kind === 'file') store.put(state.content!)
 */
export function readFileState(target: ResolvedPath, options: ReadFileStateOptions = {}): FileState {
  const path = options.followSymlinks ? target.realPath : target.entryPath;
  let stats: Stats;
  if (!options.followSymlinks && options.entry !== undefined) {
    if (options.entry === null) return { exists: false };
    stats = options.entry;
  } else {
    try {
      stats = options.followSymlinks ? statSync(path) : lstatSync(path);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return { exists: false };
      throw new FileReadFailedError({ path: target.key, reason: errorReason(error), cause: error });
    }
  }
  const mode = stats.mode & 0o7777;
  if (stats.isDirectory()) return { exists: true, kind: 'dir', hash: null, size: 0, mode, mtimeMs: stats.mtimeMs };
  if (stats.isSymbolicLink()) {
    // The link's text byte for byte (it need not be UTF-8): what is hashed and stored.
    const content = readlinkSync(path, { encoding: 'buffer' });
    const linkTarget = content.toString();
    return {
      exists: true,
      kind: 'symlink',
      hash: hashContent(content),
      size: content.length,
      mode,
      mtimeMs: stats.mtimeMs,
      linkTarget,
      ...(options.withContent ? { content } : {}),
    };
  }
  if (!stats.isFile()) {
    throw new FileReadFailedError({ path: target.key, reason: 'not a regular file, symlink or directory' });
  }
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return { exists: false };
    throw new FileReadFailedError({ path: target.key, reason: errorReason(error), cause: error });
  }
  return {
    exists: true,
    kind: 'file',
    hash: hashContent(content),
    size: content.length,
    mode,
    mtimeMs: stats.mtimeMs,
    ...(options.withContent ? { content } : {}),
  };
}
