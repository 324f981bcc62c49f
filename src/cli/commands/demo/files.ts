import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Write a project's files (`relative path → text`) under `root`. */
export function writeProject(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** The files under `root`, relative and sorted. */
export function listFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(root, join(dir, entry.name)) : [relative(root, join(dir, entry.name))]))
    .sort();
}

/** Every file under `root` with the sha256 of its content. */
export function snapshot(root: string): Map<string, string> {
  return new Map(
    listFiles(root).map((path) => [
      path,
      createHash('sha256')
        .update(readFileSync(join(root, path)))
        .digest('hex'),
    ]),
  );
}

export type FileComparison = 'same' | 'differs' | 'only-left' | 'only-right';

/** How two directories' files compare, path by path. */
export function compareTrees(left: string, right: string): Array<{ path: string; state: FileComparison }> {
  const a = snapshot(left);
  const b = snapshot(right);
  return [...new Set([...a.keys(), ...b.keys()])].sort().map((path) => ({
    path,
    state: !b.has(path) ? 'only-left' : !a.has(path) ? 'only-right' : a.get(path) === b.get(path) ? 'same' : 'differs',
  }));
}

/** Whether two snapshots hold the same files with the same contents. */
export function sameSnapshot(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, hash]) => b.get(path) === hash);
}

/** A text file's lines, indented for the demo's output (or that it does not exist). */
export function showFile(root: string, path: string, indent = '    '): string[] {
  const file = join(root, path);
  if (!existsSync(file)) return [`${indent}(${path} does not exist)`];
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => `${indent}| ${line}`);
}
