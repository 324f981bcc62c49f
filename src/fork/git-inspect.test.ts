import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findGitWorkTree, gitFeatures, listWorkTree } from './git-checkout.js';
import { inspectWorkTree } from './git-inspect.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function repository(): string {
  const repo = mkdtempSync(join(tmpdir(), 'wp-inspect-'));
  dirs.push(repo);
  git(repo, 'init', '--quiet');
  mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
  writeFileSync(join(repo, 'src', 'deep', 'a.ts'), 'a\n');
  // Names that would break a line-based or quoted reading: a newline, a tab, a quote, non-ASCII.
  writeFileSync(join(repo, 'line\nbreak.txt'), 'x\n');
  writeFileSync(join(repo, "it's\tquoted é.txt"), 'y\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n*.log\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
  mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), '1\n');
  writeFileSync(join(repo, 'debug.log'), 'log\n');
  writeFileSync(join(repo, 'untracked\nnew.md'), 'new\n');
  mkdirSync(join(repo, 'fresh'));
  writeFileSync(join(repo, 'fresh', 'b.ts'), 'b\n');
  return repo;
}

describe('inspectWorkTree (every git question of a fork in one shell)', () => {
  it('answers what the separate git calls answer: the work tree, its settings, its untracked, ignored and tracked paths', async () => {
    const repo = repository();
    git(repo, 'config', 'extensions.worktreeConfig', 'true');
    const answers = inspectWorkTree(repo, { tracked: true });
    expect(await answers.repository).toEqual(await findGitWorkTree(repo));
    expect(await answers.features).toEqual(await gitFeatures(repo));
    expect(await answers.features).toEqual({ indexNotPortable: false, registerWithGit: true });
    const listing = await answers.listing;
    expect(listing).toEqual(await listWorkTree(repo));
    expect(listing.untracked.sort()).toEqual(['fresh/b.ts', 'untracked\nnew.md']);
    expect(listing.ignored.sort()).toEqual(['debug.log', 'node_modules/']);
    expect(listing.tracked.map((entry) => entry.path)).toContain("it's\tquoted é.txt");
    // Without the index asked for, it is left out.
    expect((await inspectWorkTree(repo, { tracked: false }).listing).tracked).toEqual([]);
  });

  it('says why a directory is not a work tree to check out, as findGitWorkTree does', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'wp-inspect-plain-'));
    dirs.push(plain);
    expect(await inspectWorkTree(plain, { tracked: false }).repository).toEqual({ reason: 'not_a_git_work_tree' });
    git(plain, 'init', '--quiet');
    expect(await inspectWorkTree(plain, { tracked: false }).repository).toEqual({ reason: 'no_commit_yet' });
    const repo = repository();
    expect(await inspectWorkTree(join(repo, 'src'), { tracked: false }).repository).toEqual({ reason: 'subdirectory_of_work_tree' });
  });
});
