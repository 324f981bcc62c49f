import { lstatSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { NameTooLongError } from '../model/errors/index.js';
import { hasErrorCode } from './error-reason.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { PathProtectedError } from './path-protected-error.js';
import { isInside, realPathOf } from './real-path.js';
import { toWorkspacePath, type WorkspacePath } from './workspace-path.js';
import type { WorkspaceRoot } from './workspace-root.js';

/**
 * Where file systems are usually case-insensitive, `.WAYPOINT/x` is the store's `.waypoint/x`:
 * protected paths are compared without case there (refusing a little too much on a case-sensitive
 * volume, never too little).
 */
const FOLD_CASE = process.platform === 'darwin' || process.platform === 'win32';

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
  /**
   * A protected path (see {@link Exclusions.protected}) lying strictly below this one, or null: a
   * delete or move of this directory would take it along, so `deletePath` and `movePath` refuse.
   */
  readonly containsProtected: string | null;
  /** The protected paths in force when it was resolved (see {@link refuseProtectedDirectory}). */
  readonly protectedPaths: readonly string[];
  /**
   * Resolved with `followLink: false` (see {@link ResolveOptions}): the path names its own entry,
   * no link along it is followed, and writes, deletes and moves refuse to go through one.
   */
  readonly lexical?: boolean;
  /**
   * For a lexical path: the root-relative path of a symbolic link among its parent directories
   * (the first one), or null. Nothing at such a path is its own entry: what the link leads to
   * lives at another path.
   */
  readonly linkInPath?: string | null;
}

/** Which directories are never tracked. */
export interface Exclusions {
  /** Real absolute paths of excluded directories (the store's own directory …). */
  readonly dirs: readonly string[];
  /** Directory names excluded at any depth (`.git`). */
  readonly names: ReadonlySet<string>;
  /**
   * Real absolute paths (files or directories) nothing may write, delete, move or create in:
   * Waypoint's own store. A path at or below one, lexically or through symbolic links, is refused
   * with `PATH_PROTECTED` when it is resolved.
   */
  readonly protected?: readonly string[];
}

/**
 * Resolves `input` (relative to `root`, or absolute inside it) and refuses it — before anything is
 * read or written — when it contains NUL, climbs out with `..`, is absolute outside the root,
 * passes through a symbolic link that resolves outside the root ({@link PathOutsideWorkspaceError}),
 * or reaches a protected path, itself or through a link ({@link PathProtectedError}).
 *
 * @example
 * resolveInRoot(root, 'src/a.ts', exclusions).realPath // '/home/me/project/src/a.ts'
 * resolveInRoot(root, '../secret', exclusions)         // throws PathOutsideWorkspaceError (parent_escape)
 */
export function resolveInRoot(root: WorkspaceRoot, input: string, exclusions: Exclusions): ResolvedPath {
  return resolveEntryInRoot(root, input, exclusions).resolved;
}

/** How {@link resolveEntryInRoot} treats symbolic links along the path. */
export interface ResolveOptions {
  /**
   * False: the path is taken lexically inside the root and no link along it is followed —
   * `realPath` and `entryPath` are both `<root>/<relative path>`. A link at the last name is the
   * entry itself (a write replaces the link; where it points, inside the root, outside or
   * nowhere, is neither checked nor touched); a link among the parents is reported in
   * `linkInPath`, and writes, deletes and moves there are refused while it is in the way.
   * Rewinds use this to restore links as links and never write through one. Default true.
   */
  followLink?: boolean;
}

/**
 * The lstat of a resolved path's directory entry, taken while resolving it: its `Stats`, `null`
 * when nothing is there, `undefined` when none was taken (the root itself, or an lstat error).
 */
export type EntryStat = Stats | null | undefined;

/**
 * {@link resolveInRoot}, also returning the lstat of the entry it took on the way (see
 * {@link EntryStat}), so a caller that reads the path at once need not take it again.
 */
export function resolveEntryInRoot(
  root: WorkspaceRoot,
  input: string,
  exclusions: Exclusions,
  options: ResolveOptions = {},
): { resolved: ResolvedPath; entry: EntryStat } {
  if (input.includes('\0')) throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'nul_byte' });
  const absolutePath = resolve(root.dir, input);
  const tooLong = NameTooLongError.check(input) ?? NameTooLongError.check(absolutePath);
  if (tooLong) throw tooLong;
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
  let entry: EntryStat;
  let linkInPath: string | null = null;
  try {
    if (relativePath === '') {
      realPath = realPathOf(root.realDir);
      entryPath = root.realDir;
    } else if (options.followLink === false) {
      entryPath = realPath = resolve(root.realDir, relativePath);
      linkInPath = parentIsReal(dirname(entryPath)) ? null : firstLinkAlong(root.realDir, relativePath);
      // Below a link, an lstat of the lexical path would look through it: nothing there is this path's.
      entry = linkInPath === null ? lstatEntry(entryPath) : null;
    } else {
      const lexical = resolve(root.realDir, relativePath);
      entryPath = join(realPathOf(dirname(lexical)), basename(relativePath));
      // The real path is the entry itself unless the last name is a link: one lstat instead of
      // resolving every component of the path a second time (realpath reads each one).
      entry = lstatEntry(entryPath);
      realPath = entry === undefined || entry?.isSymbolicLink() ? realPathOf(lexical) : entryPath;
    }
  } catch (error) {
    if (hasErrorCode(error, 'ELOOP')) {
      throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'symlink_loop', cause: error });
    }
    // A symbolic link along the path can make its real path longer than the system resolves.
    if (hasErrorCode(error, 'ENAMETOOLONG')) throw new NameTooLongError({ path: input, cause: error });
    throw error;
  }
  if (!isInside(root.realDir, realPath) || !isInside(root.realDir, entryPath)) {
    throw new PathOutsideWorkspaceError({ path: input, root: root.name, reason: 'symlink_escape' });
  }
  let containsProtected: string | null = null;
  if (exclusions.protected !== undefined && exclusions.protected.length > 0) {
    const [real, entryAt] = FOLD_CASE ? [realPath.toLowerCase(), entryPath.toLowerCase()] : [realPath, entryPath];
    for (const guarded of exclusions.protected) {
      const folded = FOLD_CASE ? guarded.toLowerCase() : guarded;
      if (isInside(folded, real) || isInside(folded, entryAt)) {
        throw new PathProtectedError({ path: input, root: root.name, protectedPath: guarded, operation: 'resolve' });
      }
      if (containsProtected === null && isInside(entryAt, folded)) containsProtected = guarded;
    }
  }
  const resolved: ResolvedPath = {
    root,
    relativePath,
    absolutePath: resolve(root.dir, relativePath),
    realPath,
    entryPath,
    key: toWorkspacePath(root.name, relativePath),
    tracked: root.tracked && !isExcluded(relativePath, realPath, exclusions),
    containsProtected,
    protectedPaths: exclusions.protected ?? [],
    ...(options.followLink === false ? { lexical: true, linkInPath } : {}),
  };
  return { resolved, entry };
}

/**
 * The lstat of `entryPath` (a real parent joined with a name): null when it does not exist (a
 * missing tail is its own real path, as `realPathOf` keeps it), undefined on any other error
 * (then `realPathOf` meets the error and raises it as before).
 */
function lstatEntry(entryPath: string): EntryStat {
  try {
    // A missing file is common (a rewind creates files again): no exception for it.
    return lstatSync(entryPath, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    return hasErrorCode(error, 'ENOENT', 'ENOTDIR') ? null : undefined;
  }
}

/** Whether no symbolic link (a looping one included) is along `directory` (a missing tail is real). */
function parentIsReal(directory: string): boolean {
  try {
    return realPathOf(directory) === directory;
  } catch (error) {
    if (hasErrorCode(error, 'ELOOP')) return false;
    throw error;
  }
}

/** The root-relative path of the first symbolic link among the parents of `relativePath`, or null. */
function firstLinkAlong(rootDir: string, relativePath: string): string | null {
  const parts = relativePath.split('/');
  for (let index = 1; index < parts.length; index++) {
    const candidate = parts.slice(0, index).join('/');
    try {
      if (lstatSync(join(rootDir, candidate)).isSymbolicLink()) return candidate;
    } catch {
      return null; // missing from here on: nothing below can be a link
    }
  }
  return null;
}

/**
 * The first symbolic link among `directory` and its parents up to the target's root (absolute), or
 * null: checked just before a lexical path (see {@link ResolveOptions}) is changed, since the
 * change would land where the link leads, not at the path.
 */
export function linkAlongDirectory(target: ResolvedPath, directory: string): string | null {
  const rootDir = target.root.realDir;
  for (let current = directory; current !== rootDir && isInside(rootDir, current); current = dirname(current)) {
    try {
      if (lstatSync(current).isSymbolicLink()) return current;
    } catch {
      // missing: created below, as a real directory
    }
  }
  return null;
}

/** Whether a resolved path lies in an excluded directory. */
export function isExcluded(relativePath: string, realPath: string, exclusions: Exclusions): boolean {
  if (relativePath !== '' && relativePath.split('/').some((part) => exclusions.names.has(part))) return true;
  return exclusions.dirs.some((dir) => isInside(dir, realPath));
}

/**
 * Refuses (`PATH_PROTECTED`) a write, delete or move whose directory, resolved again just before
 * the change, now lies in a protected path: a directory swapped for a link into the store after
 * the path was resolved.
 */
export function refuseProtectedDirectory(target: ResolvedPath, realDirectory: string): void {
  const directory = FOLD_CASE ? realDirectory.toLowerCase() : realDirectory;
  for (const guarded of target.protectedPaths) {
    if (isInside(FOLD_CASE ? guarded.toLowerCase() : guarded, directory)) {
      throw new PathProtectedError({ path: target.relativePath, root: target.root.name, protectedPath: guarded, operation: 'resolve' });
    }
  }
}
