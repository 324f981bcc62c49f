import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { FileReadFailedError, PathOutsideWorkspaceError, toWorkspacePath, type ResolvedPath, type Workspace } from '../workspace/index.js';

/** Default size above which a file's content is not kept. */
export const DEFAULT_CHECKPOINT_MAX_FILE_SIZE = 10 * 1024 * 1024;

/**
 * File type bits in checkpoint modes. A regular file's `beforeMode`/`afterMode` is its permission
 * bits alone (`0o644`); a symlink's is `0o120000 | bits` and its blob is the link text; a
 * directory's (mkdir, rmdir, a renamed directory) is `0o040000 | bits`.
 */
export const SYMLINK_MODE = 0o120000;
export const DIRECTORY_MODE = 0o040000;
const TYPE_MASK = 0o170000;

/** What a checkpoint mode says the entry was. */
export function modeKind(mode: number | null): 'file' | 'symlink' | 'dir' | null {
  if (mode === null) return null;
  const type = mode & TYPE_MASK;
  return type === SYMLINK_MODE ? 'symlink' : type === DIRECTORY_MODE ? 'dir' : 'file';
}

/** A path's state as capture sees it: its content is read only when it is at most `maxFileSize`. */
export type CapturedEntry =
  | { exists: false }
  | { exists: true; kind: 'file' | 'symlink' | 'dir'; mode: number; size: number; content: Buffer | null; tooLarge: boolean };

/** Reads a confined path without following a final symlink (a link's content is its target text). */
export function captureEntry(target: ResolvedPath, maxFileSize: number): CapturedEntry {
  let stats;
  try {
    stats = lstatSync(target.entryPath);
  } catch (error) {
    if (isMissing(error)) return { exists: false };
    throw new FileReadFailedError({ path: target.key, reason: reasonOf(error), cause: error });
  }
  const permissions = stats.mode & 0o7777;
  try {
    if (stats.isSymbolicLink()) {
      const content = readlinkSync(target.entryPath, { encoding: 'buffer' });
      return { exists: true, kind: 'symlink', mode: SYMLINK_MODE | permissions, size: content.length, content, tooLarge: false };
    }
    if (stats.isDirectory()) return { exists: true, kind: 'dir', mode: DIRECTORY_MODE | permissions, size: 0, content: null, tooLarge: false };
    if (!stats.isFile()) throw new FileReadFailedError({ path: target.key, reason: 'not a regular file, symlink or directory' });
    if (stats.size > maxFileSize) return { exists: true, kind: 'file', mode: permissions, size: stats.size, content: null, tooLarge: true };
    const content = readFileSync(target.entryPath);
    return { exists: true, kind: 'file', mode: permissions, size: content.length, content, tooLarge: false };
  } catch (error) {
    if (error instanceof FileReadFailedError) throw error;
    if (isMissing(error)) return { exists: false };
    throw new FileReadFailedError({ path: target.key, reason: reasonOf(error), cause: error });
  }
}

/**
 * Resolves a caller path to the entry a write really changes: a path that passes through (or ends
 * in) a symlink is resolved to the file the link points to, so the checkpoint names the file whose
 * content changed. Confinement is checked by `Workspace.resolve` on both.
 */
export function resolveWriteTarget(workspace: Workspace, path: string, options: { root?: string } = {}): ResolvedPath {
  const resolved = workspace.resolve(path, options);
  if (resolved.realPath === resolved.entryPath) return canonicalEntry(workspace, resolved);
  return workspace.resolve(resolved.realPath);
}

/**
 * Resolves a caller path to its directory entry (a final symlink is the entry itself, for deletes
 * and moves) under the key of where that entry really is: a link among the parent directories is
 * resolved, so a checkpoint never names a path through a link (rewinds never write through one).
 */
export function resolveEntryTarget(workspace: Workspace, path: string, options: { root?: string } = {}): ResolvedPath {
  let resolved: ResolvedPath;
  try {
    resolved = workspace.resolve(path, options);
  } catch (error) {
    if (!(error instanceof PathOutsideWorkspaceError) || error.reason !== 'symlink_escape') throw error;
    // A link whose target lies outside is itself an entry inside: deleting or moving it never follows it.
    const link = linkEntry(workspace, path, options);
    if (link === null) throw error;
    return link;
  }
  return canonicalEntry(workspace, resolved);
}

/**
 * The symbolic link at `path`'s last name, resolved through its (real) directory without following
 * it, or null when its directory does not resolve inside a root or no link is there.
 */
function linkEntry(workspace: Workspace, path: string, options: { root?: string }): ResolvedPath | null {
  const name = basename(path);
  if (name === '' || name === '.' || name === '..') return null;
  let parent: ResolvedPath;
  try {
    parent = workspace.resolve(dirname(path), options);
  } catch {
    return null;
  }
  const relativePath = relative(parent.root.realDir, resolve(parent.realPath, name)).split(sep).join('/');
  const { resolved, entry } = workspace.resolveKeyEntry(toWorkspacePath(parent.root.name, relativePath), { followLink: false });
  return entry?.isSymbolicLink() && resolved.linkInPath === null ? resolved : null;
}

function canonicalEntry(workspace: Workspace, resolved: ResolvedPath): ResolvedPath {
  if (resolved.relativePath === '' || resolved.entryPath === resolve(resolved.root.realDir, resolved.relativePath)) return resolved;
  return workspace.resolve(resolved.entryPath);
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
