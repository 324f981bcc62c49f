import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { hasErrorCode } from './error-reason.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { isInside, realPathOf } from './real-path.js';
import { toWorkspacePath, type WorkspacePath } from './workspace-path.js';
import type { WorkspaceRoot } from './workspace-root.js';

/**
 * A path that passed confinement: it lies inside `root`, lexically and after resolving every
 * symbolic link that exists along it. Only {@link resolveInRoot} (and `Workspace.resolve`) make
 * these, and the write helpers accept nothing else.
 */
export interface ResolvedPath {
  readonly root: WorkspaceRoot;
  /** Root-relative, `/`-separated, normalized; `''` is the root itself. */
  readonly relativePath: string;
  /** `root.dir` joined with `relativePath`, symbolic links not resolved. */
  readonly absolutePath: string;
  /** Every existing symbolic link along the path resolved (a missing tail kept as is). */
  readonly realPath: string;
  /**
   * The directory entry itself: the real path of the parent joined with the last name, so a final
   * symbolic link is not followed. Deletes, moves and lstat use this; writes follow `realPath`.
   */
  readonly entryPath: string;
  readonly key: WorkspacePath;
  /** Whether changes to this path are checkpointed (tracked root and not in an excluded directory). */
  readonly tracked: boolean;
}

/** Which directories are never tracked. */
export interface Exclusions {
  /** Real absolute paths of excluded directories (the store's own directory …). */
  readonly dirs: readonly string[];
  /** Directory names excluded at any depth (`.git`). */
  readonly names: ReadonlySet<string>;
}

/**
 * Resolves `input` (relative to `root`, or absolute inside it) and refuses it — before anything is
 * read or written — when it contains NUL, climbs out with `..`, is absolute outside the root, or
 * passes through a symbolic link that resolves outside the root.
 *
 * @example
 * resolveInRoot(root, 'src/a.ts', exclusions).realPath // '/home/me/project/src/a.ts'
 * resolveInRoot(root, '../secret', exclusions)         // throws PathOutsideWorkspaceError (parent_escape)
 */
export function resolveInRoot(root: WorkspaceRoot, input: string, exclusions: Exclusions): ResolvedPath {
  if (input.includes('\0')) throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'nul_byte' });
  const absolutePath = resolve(root.dir, input);
  let relativePath = relative(root.dir, absolutePath);
  if (isAbsolute(input) && !isInside(root.dir, absolutePath)) {
    if (!isInside(root.realDir, absolutePath)) {
      throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'absolute_outside' });
    }
    relativePath = relative(root.realDir, absolutePath);
  } else if (relativePath === '..' || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath)) {
    throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'parent_escape' });
  }
  if (sep !== '/') relativePath = relativePath.split(sep).join('/');

  let realPath: string;
  let entryPath: string;
  try {
    realPath = realPathOf(resolve(root.realDir, relativePath));
    entryPath = relativePath === '' ? root.realDir : join(realPathOf(dirname(resolve(root.realDir, relativePath))), basename(relativePath));
  } catch (error) {
    if (hasErrorCode(error, 'ELOOP')) {
      throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'symlink_loop', cause: error });
    }
    throw error;
  }
  if (!isInside(root.realDir, realPath) || !isInside(root.realDir, entryPath)) {
    throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'symlink_escape' });
  }
  return {
    root,
    relativePath,
    absolutePath: resolve(root.dir, relativePath),
    realPath,
    entryPath,
    key: toWorkspacePath(root.name, relativePath),
    tracked: root.tracked && !isExcluded(relativePath, realPath, exclusions),
  };
}

/** Whether a resolved path lies in an excluded directory. */
export function isExcluded(relativePath: string, realPath: string, exclusions: Exclusions): boolean {
  if (relativePath !== '' && relativePath.split('/').some((part) => exclusions.names.has(part))) return true;
  return exclusions.dirs.some((dir) => isInside(dir, realPath));
}
