import { isAbsolute, resolve } from 'node:path';
import { InvalidArgumentError } from '../model/errors/index.js';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';
import { isInside, realPathOf } from './real-path.js';
import { resolveEntryInRoot, resolveInRoot, type EntryStat, type Exclusions, type ResolveOptions, type ResolvedPath } from './resolve-path.js';
import { parseWorkspacePath, type WorkspacePath } from './workspace-path.js';
import { createWorkspaceRoot, type WorkspaceRoot, type WorkspaceRootSpec } from './workspace-root.js';

/** How to build a {@link Workspace}. */
export interface WorkspaceOptions {
  /** At least one root; names must be unique. */
  roots: readonly WorkspaceRootSpec[];
  /** Absolute directories never tracked, wherever they sit (the store's own directory …). */
  excludedDirs?: readonly string[];
  /** Directory names never tracked at any depth. Default `['.git']`. */
  excludedNames?: readonly string[];
  /**
   * Absolute paths (files or directories) that nothing may write, delete, move or create in:
   * Waypoint's own store when it lies in a root. Every resolve refuses them (`PATH_PROTECTED`),
   * through symbolic links too, and deletes and moves refuse a directory that contains one.
   */
  protectedPaths?: readonly string[];
}

/**
 * The set of roots a session may touch, and the one place where caller paths become filesystem
 * paths. Every read and write in Waypoint goes through {@link Workspace.resolve}, which refuses
 * anything outside the roots and anything inside a protected path (Waypoint's own store).
 *
 * @example
 * const workspace = new Workspace({
 *   roots: [{ name: 'workspace', dir: '/home/me/project', kind: 'workspace' }, { name: 'logs', dir: '/var/log/agent', kind: 'logs' }],
 *   excludedDirs: ['/home/me/project/.waypoint'],
 *   protectedPaths: ['/home/me/project/.waypoint'],
 * })
 * const target = workspace.resolve('src/a.ts')          // in the first workspace root
 * const log = workspace.resolve('run.log', { root: 'logs' }) // written, never tracked
 * workspace.resolve('.waypoint/waypoint.db')            // throws PathProtectedError (PATH_PROTECTED)
 */
export class Workspace {
  readonly roots: readonly WorkspaceRoot[];
  readonly exclusions: Exclusions;

  constructor(options: WorkspaceOptions) {
    if (!options.roots || options.roots.length === 0) {
      throw new InvalidArgumentError({ parameter: 'roots', value: options.roots, reason: 'declare at least one root' });
    }
    const roots = options.roots.map(createWorkspaceRoot);
    const names = new Set<string>();
    for (const root of roots) {
      if (names.has(root.name)) throw new InvalidArgumentError({ parameter: 'root.name', value: root.name, reason: 'root names must be unique' });
      names.add(root.name);
    }
    for (const dir of options.excludedDirs ?? []) {
      if (!isAbsolute(dir)) throw new InvalidArgumentError({ parameter: 'excludedDirs', value: dir, reason: 'must be absolute paths' });
    }
    for (const path of options.protectedPaths ?? []) {
      if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) {
        throw new InvalidArgumentError({ parameter: 'protectedPaths', value: path, reason: 'must be absolute paths' });
      }
    }
    this.roots = Object.freeze(roots);
    this.exclusions = Object.freeze({
      dirs: (options.excludedDirs ?? []).map((dir) => realPathOf(resolve(dir))),
      names: new Set(options.excludedNames ?? ['.git']),
      protected: [...new Set((options.protectedPaths ?? []).map((path) => realPathOf(resolve(path))))],
    });
  }

  /** The root with this name; throws `WORKSPACE_ROOT_UNKNOWN` otherwise. */
  root(name: string): WorkspaceRoot {
    const root = this.roots.find((candidate) => candidate.name === name);
    if (!root) {
      throw new InvalidArgumentError({
        code: 'WORKSPACE_ROOT_UNKNOWN',
        parameter: 'root',
        value: name,
        reason: `no root named "${name}"; roots are ${this.roots.map((candidate) => candidate.name).join(', ')}`,
      });
    }
    return root;
  }

  /** The root relative paths default to: the first `workspace` root, else the first root. */
  get primaryRoot(): WorkspaceRoot {
    return this.roots.find((root) => root.kind === 'workspace') ?? this.roots[0]!;
  }

  /**
   * The protected paths that lie inside some root (real, absolute): those a shell command started
   * in the workspace could reach by a relative path or a glob. Empty when the store is elsewhere.
   */
  protectedPathsInRoots(): string[] {
    return (this.exclusions.protected ?? []).filter((path) => this.roots.some((root) => isInside(root.realDir, path)));
  }

  /** Roots whose changes are checkpointed (`workspace` and `custom`). */
  trackedRoots(): WorkspaceRoot[] {
    return this.roots.filter((root) => root.tracked);
  }

  /**
   * Confines a caller path. Relative paths are taken against `options.root` (default: the primary
   * root); absolute paths must lie inside some root (the deepest one containing it is used, or
   * `options.root` when given). Throws {@link PathOutsideWorkspaceError} before any read or write.
   */
  resolve(path: string, options: { root?: string } = {}): ResolvedPath {
    if (typeof path !== 'string') throw new InvalidArgumentError({ parameter: 'path', value: path, reason: 'must be a string' });
    if (options.root !== undefined) return resolveInRoot(this.root(options.root), path, this.exclusions);
    if (isAbsolute(path) && !path.includes('\0')) {
      const absolute = resolve(path);
      const containing = this.roots
        .filter((root) => isInside(root.dir, absolute) || isInside(root.realDir, absolute))
        .sort((a, b) => b.dir.length - a.dir.length)[0];
      if (!containing) throw new PathOutsideWorkspaceError({ path, root: null, reason: 'absolute_outside' });
      return resolveInRoot(containing, path, this.exclusions);
    }
    return resolveInRoot(this.primaryRoot, path, this.exclusions);
  }

  /**
   * Resolves a root-qualified {@link WorkspacePath} such as `workspace:src/a.ts`. With
   * `{ followLink: false }` a link at the last name is the entry itself (see {@link ResolveOptions}).
   */
  resolveKey(key: WorkspacePath, options: ResolveOptions = {}): ResolvedPath {
    const { root, relativePath } = parseWorkspacePath(key);
    return resolveEntryInRoot(this.root(root), relativePath, this.exclusions, options).resolved;
  }

  /**
   * {@link resolveKey}, with the lstat of the entry taken while resolving it, for a caller that
   * reads the path at once: `readFileState(resolved, { entry })` then takes no second one.
   */
  resolveKeyEntry(key: WorkspacePath, options: ResolveOptions = {}): { resolved: ResolvedPath; entry: EntryStat } {
    const { root, relativePath } = parseWorkspacePath(key);
    return resolveEntryInRoot(this.root(root), relativePath, this.exclusions, options);
  }
}
