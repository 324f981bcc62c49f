import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGitIgnoreSettings } from './git-config.js';
import { readTrackedPaths, type TrackedPaths } from './git-index.js';
import { findGitWorkTree, type GitWorkTree } from './git-work-tree.js';
import { type IgnoreSource, IgnoreRules } from './ignore-rules.js';

/** What decides about ignoring below one root directory: git's rules and index, when it lies in a work tree. */
export interface RootIgnores {
  /** The rules in force at the root itself, before its own ignore files. */
  readonly rules: IgnoreRules;
  /** The work tree containing the root, or null outside git (then only in-tree ignore files apply). */
  readonly workTree: GitWorkTree | null;
  /** The index's paths (relative to the work tree's top), or null when nothing is tracked. */
  readonly tracked: TrackedPaths | null;
  /** `core.ignoreCase`: rules and index lookups fold ASCII case. */
  readonly ignoreCase: boolean;
}

/**
 * Loads the ignore context of a root directory (a real path). Inside a git work tree the rules
 * start with `core.excludesFile` (or git's default `$XDG_CONFIG_HOME/git/ignore`), then
 * `.git/info/exclude`, then the `.gitignore` files of the directories between the work tree's top
 * and the root; the index's paths are tracked whatever the rules say. A root that git's rules
 * ignore as a whole is still scanned (the person chose it): only rules about paths inside it apply.
 * Outside a work tree: no rules, nothing tracked — the root's own ignore files still apply.
 *
 * @example
 * const { rules, tracked } = loadRootIgnores('/repo')
 * rules.withDirectory('', '/repo', ['.gitignore']).ignores('dist', true)
 */
export function loadRootIgnores(rootDir: string): RootIgnores {
  const workTree = findGitWorkTree(rootDir);
  if (workTree === null) return { rules: IgnoreRules.empty(), workTree: null, tracked: null, ignoreCase: false };
  const settings = readGitIgnoreSettings(workTree);
  const sources: IgnoreSource[] = [];
  const add = (path: string, base: string, source: string, inTree: boolean) => {
    try {
      // In-tree ignore files that are symbolic links are not followed, as in git.
      if (inTree && lstatSync(path).isSymbolicLink()) return;
      sources.push({ path: source, bytes: readFileSync(path, 'latin1'), base });
    } catch {
      // absent or unreadable: no rules from it
    }
  };
  if (settings.excludesFile !== null) add(settings.excludesFile, '', settings.excludesFile, false);
  add(join(workTree.commonDir, 'info', 'exclude'), '', '.git/info/exclude', false);
  if (workTree.prefix !== '') {
    const parts = workTree.prefix.split('/');
    for (let depth = 0; depth < parts.length; depth++) {
      const relative = parts.slice(0, depth).join('/');
      const source = relative === '' ? '.gitignore' : `${relative}/.gitignore`;
      add(join(workTree.top, source), relative, source, true);
    }
  }
  const rules = IgnoreRules.fromSources(sources, { prefix: workTree.prefix, ignoreCase: settings.ignoreCase });
  return { rules, workTree, tracked: readTrackedPaths(workTree, settings.objectFormat), ignoreCase: settings.ignoreCase };
}
