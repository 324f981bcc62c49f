import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './git-history.js';

/** A tree as git records it: path → `<mode> <blob sha1>` (100644, 100755 or 120000), files and links only. */
export type Tree = Map<string, string>;

/** The tree of `commit` in `repo`, from `git ls-tree -r`. */
export function commitTree(repo: string, commit: string): Tree {
  const tree: Tree = new Map();
  for (const entry of git(repo, ['ls-tree', '-r', '-z', commit]).toString('utf8').split('\0')) {
    if (!entry) continue;
    const tab = entry.indexOf('\t');
    const [mode, type, sha] = entry.slice(0, tab).split(' ');
    if (type === 'blob') tree.set(entry.slice(tab + 1), `${mode} ${sha}`);
  }
  return tree;
}

/** The blob id git gives these bytes (`git hash-object`). */
export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/**
 * A directory's files and links in the same form as `commitTree` (directories are not entries, as
 * in git), leaving out `.git` and the paths in `skip`.
 */
export function directoryTree(dir: string, skip: ReadonlySet<string> = new Set()): Tree {
  const tree: Tree = new Map();
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(dir, relative))) {
      const path = relative ? `${relative}/${name}` : name;
      if (path === '.git' || skip.has(path)) continue;
      const stats = lstatSync(join(dir, path));
      if (stats.isDirectory()) walk(path);
      else if (stats.isSymbolicLink()) tree.set(path, `120000 ${gitBlobId(Buffer.from(readlinkSync(join(dir, path))))}`);
      else tree.set(path, `${stats.mode & 0o100 ? '100755' : '100644'} ${gitBlobId(readFileSync(join(dir, path)))}`);
    }
  };
  walk('');
  return tree;
}

/** Each path whose entry differs, as `path: expected <e> got <a>` (sorted; empty when the trees match). */
export function treeDifferences(expected: Tree, actual: Tree): string[] {
  const paths = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  return paths
    .filter((path) => expected.get(path) !== actual.get(path))
    .map((path) => `${path}: expected ${expected.get(path) ?? 'absent'}, got ${actual.get(path) ?? 'absent'}`);
}
