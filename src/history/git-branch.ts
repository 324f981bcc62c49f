import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * The checked-out branch of the git repository containing `dir`, read from `.git/HEAD` (no git
 * binary needed; worktrees and submodules with a `.git` file are followed). Null when `dir` is
 * not inside a repository, or HEAD is detached (then `detached@<short sha>` is returned).
 */
export function readGitBranch(dir: string): string | null {
  let current = resolve(dir);
  for (;;) {
    const gitPath = join(current, '.git');
    const gitDir = resolveGitDir(gitPath, current);
    if (gitDir) return branchFromHead(gitDir);
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

function resolveGitDir(gitPath: string, worktree: string): string | null {
  try {
    const stat = statSync(gitPath);
    if (stat.isDirectory()) return gitPath;
    if (stat.isFile()) {
      const match = /^gitdir:\s*(.+)\s*$/m.exec(readFileSync(gitPath, 'utf8'));
      if (!match) return null;
      const target = match[1]!.trim();
      return isAbsolute(target) ? target : resolve(worktree, target);
    }
  } catch {
    // not here
  }
  return null;
}

function branchFromHead(gitDir: string): string | null {
  let head: string;
  try {
    head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return null;
  }
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  if (ref) return ref[1]!;
  if (/^[0-9a-f]{40,64}$/.test(head)) return `detached@${head.slice(0, 7)}`;
  return null;
}
