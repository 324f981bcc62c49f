import { lstatSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Where git keeps the repository of a work tree that contains some directory. */
export interface GitWorkTree {
  /** The work tree's top directory (absolute, real when the directory given was real). */
  readonly top: string;
  /** Its git directory: `.git`, or the directory a `.git` file names (a linked worktree, a submodule). */
  readonly gitDir: string;
  /** The directory shared by linked worktrees (config, `info/exclude`); `gitDir` for a plain repository. */
  readonly commonDir: string;
  /** The directory given, relative to `top` (`''` when it is the top). */
  readonly prefix: string;
}

/**
 * Finds the git work tree containing `dir` the way git does: the nearest directory at or above it
 * holding a `.git` directory (with a `HEAD`) or a `.git` file (`gitdir: <path>`), without crossing
 * into another file system. Reads files only; runs no git. Null when there is none.
 *
 * @example
 * findGitWorkTree('/repo/packages/app') // { top: '/repo', gitDir: '/repo/.git', commonDir: '/repo/.git', prefix: 'packages/app' }
 */
export function findGitWorkTree(dir: string): GitWorkTree | null {
  const start = resolve(dir);
  let current = start;
  let device: number;
  try {
    device = statSync(current).dev;
  } catch {
    return null;
  }
  for (;;) {
    const gitDir = gitDirAt(current);
    if (gitDir !== null) {
      const prefix = current === start ? '' : start.slice(current === '/' ? 1 : current.length + 1);
      return { top: current, gitDir, commonDir: commonDirOf(gitDir), prefix };
    }
    const parent = dirname(current);
    if (parent === current) return null;
    try {
      if (statSync(parent).dev !== device) return null;
    } catch {
      return null;
    }
    current = parent;
  }
}

function gitDirAt(dir: string): string | null {
  const dotGit = join(dir, '.git');
  let stats;
  try {
    stats = lstatSync(dotGit);
  } catch {
    return null;
  }
  if (stats.isDirectory()) return isGitDir(dotGit) ? dotGit : null;
  if (!stats.isFile()) return null;
  let text: string;
  try {
    text = readFileSync(dotGit, 'utf8');
  } catch {
    return null;
  }
  const match = /^gitdir: *(.+?)\s*$/m.exec(text);
  if (match === null) return null;
  const target = isAbsolute(match[1]!) ? match[1]! : resolve(dir, match[1]!);
  return isGitDir(target) ? target : null;
}

function isGitDir(dir: string): boolean {
  try {
    return statSync(join(dir, 'HEAD')).isFile();
  } catch {
    return false;
  }
}

function commonDirOf(gitDir: string): string {
  try {
    const named = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    if (named !== '') return isAbsolute(named) ? named : resolve(gitDir, named);
  } catch {
    // no commondir file: a plain repository, its own common directory
  }
  return gitDir;
}
