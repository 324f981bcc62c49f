import { lstatSync } from 'node:fs';
import type { TrackedPaths } from './git-index.js';
import type { GitWorkTree } from './git-work-tree.js';
import { IGNORE_FILE_NAMES, type IgnoreRules } from './ignore-rules.js';
import { loadRootIgnores } from './root-ignores.js';

/** What a scan makes of a path: kept because git tracks it, passed over as ignored, or kept as not ignored. */
export type IgnoreStatus = 'tracked' | 'ignored' | 'not_ignored';

/** Ignore decisions for paths below one root directory, the same a scan makes. */
export interface WorkspaceIgnores {
  /** The git work tree the root lies in, or null outside git. */
  readonly workTree: GitWorkTree | null;
  /** What git's index tracks (paths relative to the work tree's top), or null outside git or with no index. */
  readonly tracked: TrackedPaths | null;
  /**
   * The status of a root-relative path (`'node_modules'`, `'src/a.ts'`; a directory when
   * `isDirectory`): `tracked` when git's index has it (a directory: something below it), else
   * `ignored` when a rule ignores it or one of its directories, else `not_ignored`.
   */
  status(relativePath: string, isDirectory: boolean): IgnoreStatus;
}

/**
 * The ignore decisions of a scan for paths below `rootDir` (a real path): git's rules (nested
 * `.gitignore` files, `.git/info/exclude`, `core.excludesFile`), the `.waypointignore` files, and
 * git's index, which keeps what it tracks. Reads the ignore files once per directory asked about;
 * ask again (call this again) after they change.
 *
 * @example
 * const ignores = workspaceIgnores('/repo')
 * ignores.status('node_modules', true)       // 'ignored'
 * ignores.status('fixtures/force-added.log', false) // 'tracked'
 */
export function workspaceIgnores(rootDir: string): WorkspaceIgnores {
  const { rules: rootRules, workTree, tracked, ignoreCase } = loadRootIgnores(rootDir);
  const prefix = workTree === null || workTree.prefix === '' ? '' : `${workTree.prefix}/`;
  const rulesByDirectory = new Map<string, IgnoreRules>();
  const rulesIn = (relativeDir: string, parent: IgnoreRules): IgnoreRules => {
    let rules = rulesByDirectory.get(relativeDir);
    if (rules === undefined) {
      const absolute = relativeDir === '' ? rootDir : `${rootDir}/${relativeDir}`;
      const present = IGNORE_FILE_NAMES.filter((name) => {
        try {
          return !lstatSync(`${absolute}/${name}`).isDirectory();
        } catch {
          return false;
        }
      });
      rules = parent.withDirectory(relativeDir, absolute, present);
      rulesByDirectory.set(relativeDir, rules);
    }
    return rules;
  };
  const isTracked = (path: string, isDirectory: boolean) =>
    tracked !== null && (isDirectory ? tracked.hasDirectory(prefix + path, ignoreCase) : tracked.hasFile(prefix + path, ignoreCase));
  return {
    workTree,
    tracked,
    status(relativePath, isDirectory) {
      const path = relativePath.replace(/^\/+|\/+$/g, '');
      if (path === '') return 'not_ignored';
      if (isTracked(path, isDirectory)) return 'tracked';
      const parts = path.split('/');
      let rules = rulesIn('', rootRules);
      for (let depth = 1; depth < parts.length; depth++) {
        const directory = parts.slice(0, depth).join('/');
        if (rules.ignores(directory, true)) return 'ignored';
        rules = rulesIn(directory, rules);
      }
      return rules.ignores(path, isDirectory) ? 'ignored' : 'not_ignored';
    },
  };
}
