import { lstatSync, rmdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { RewindConflictError } from './errors/index.js';
import type { PlannedStep } from './rewind-plan.js';

/**
 * The directories above the steps' targets that do not exist yet (deepest first), as workspace
 * keys of their real paths: the apply creates them, a rollback removes them.
 */
export function missingDirectories(steps: readonly PlannedStep[]): string[] {
  const missing = new Map<string, string>();
  for (const step of steps) {
    // A file that exists now has its directory: its write creates none (and if the file is gone
    // by then, its re-check refuses the step before anything is written).
    if (!step.target.exists || step.expected.exists) continue;
    const root = step.resolved.root;
    for (let directory = dirname(step.resolved.realPath); directory !== root.realDir && directory !== dirname(directory); directory = dirname(directory)) {
      // A link there is no directory: the rewind removes it first and creates a real one.
      if (missing.has(directory) || isRealDirectory(directory)) break;
      missing.set(directory, `${root.name}:${relative(root.realDir, directory).split(sep).join('/')}`);
    }
  }
  return [...missing.entries()].sort(([a], [b]) => b.length - a.length).map(([, key]) => key);
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Removes the directory a file is about to take the place of, and the directories inside it,
 * deepest first: each must be empty by now (the steps before deleted their files, contents kept).
 * A file that appeared inside meanwhile is a conflict, and stays.
 */
export function removeEmptyDirectories(step: PlannedStep, directories: Set<string>): void {
  const root = step.resolved.root;
  for (const key of step.replacesDirectories ?? []) {
    const path = join(root.realDir, key.slice(key.indexOf(':') + 1));
    try {
      rmdirSync(path);
      // Its own entries need no fsync any more (it is gone); its removal needs its parent's.
      directories.delete(path);
      directories.add(dirname(path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') {
        throw new RewindConflictError({
          files: [{ path: step.path, status: 'external_modified', reason: `something was put in ${key} while the rewind was being applied; it stays` }],
        });
      }
      throw error;
    }
  }
}
