import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitFeatures, moveRegistration, registrationOf } from '../../src/fork/git-checkout.js';
import { writeWorkTreeRegistration } from '../../src/fork/worktree-registration.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let dir: string;
let repo: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'waypoint-registration-')));
  repo = join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '--quiet');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'base');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A linked work tree made in a staging directory and checked out there, as a fork builds one. */
function stagedWorkTree(): { staging: string; target: string } {
  const staging = join(dir, '.staging');
  mkdirSync(staging);
  git(repo, 'worktree', 'add', '--quiet', '--detach', join(staging, 'fork'), 'HEAD');
  return { staging: join(staging, 'fork'), target: join(dir, 'fork') };
}

describe('moving a linked work tree out of its staging directory without git worktree repair', () => {
  it('points the registration at the new place: git lists it there, status is clean, and prune keeps it', () => {
    const { staging, target } = stagedWorkTree();
    renameSync(staging, target);
    moveRegistration(staging, target, { durable: true });
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${target}\n`);
    git(repo, 'worktree', 'prune');
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${target}\n`);
    expect(git(target, 'status', '--porcelain')).toBe('');
    expect(registrationOf(target)).toBe(join(repo, '.git', 'worktrees', 'fork'));
  });

  it('keeps relative pointers relative (worktree.useRelativePaths) and correct from the new place', () => {
    const { staging, target } = stagedWorkTree();
    const registration = registrationOf(staging)!;
    // What a git with relative work tree paths writes.
    writeFileSync(join(staging, '.git'), `gitdir: ${relative(staging, registration)}\n`);
    writeFileSync(join(registration, 'gitdir'), `${relative(registration, join(staging, '.git'))}\n`);
    renameSync(staging, target);
    moveRegistration(staging, target, { durable: false });
    expect(readFileSync(join(target, '.git'), 'utf8')).toBe(`gitdir: ${relative(target, registration)}\n`);
    expect(readFileSync(join(registration, 'gitdir'), 'utf8')).toBe(`${relative(registration, join(target, '.git'))}\n`);
    expect(registrationOf(target)).toBe(registration);
    expect(git(target, 'status', '--porcelain')).toBe('');
    expect(git(target, 'rev-parse', '--git-dir').trim()).toBe(registration);
  });
});

describe('registering a linked work tree without git worktree add', () => {
  const head = () => git(repo, 'rev-parse', 'HEAD').trim();

  it('writes what git worktree add writes: git lists it detached at the commit, status is clean once the files and index are there, and remove and prune work', () => {
    const target = join(dir, 'fork');
    const registration = writeWorkTreeRegistration(join(repo, '.git'), target, head());
    expect(registration).toBe(join(repo, '.git', 'worktrees', 'fork'));
    expect(registrationOf(target)).toBe(registration);
    // The same files as git's own registration of another work tree (git also keeps a reflog).
    git(repo, 'worktree', 'add', '--quiet', '--no-checkout', '--detach', join(dir, 'by-git'), 'HEAD');
    const layout = (path: string) =>
      readdirSync(path)
        .filter((name) => name !== 'logs')
        .sort();
    expect(layout(registration)).toEqual(layout(join(repo, '.git', 'worktrees', 'by-git')));
    expect(readFileSync(join(registration, 'commondir'), 'utf8')).toBe(readFileSync(join(repo, '.git', 'worktrees', 'by-git', 'commondir'), 'utf8'));

    copyFileSync(join(repo, 'a.txt'), join(target, 'a.txt'));
    copyFileSync(join(repo, '.git', 'index'), join(registration, 'index'));
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${target}\nHEAD ${head()}\ndetached\n`);
    expect(git(target, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(target, 'rev-parse', '--git-dir', '--git-common-dir').trim().split('\n')).toEqual([registration, join(repo, '.git')]);
    // A change shows as a change, and the work tree can commit on its own branch.
    writeFileSync(join(target, 'a.txt'), 'changed\n');
    expect(git(target, 'diff', '--name-only')).toBe('a.txt\n');
    git(target, 'switch', '--quiet', '-c', 'side');
    git(target, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-am', 'side');
    expect(git(repo, 'log', '--format=%s', '-1', 'side')).toBe('side\n');

    git(repo, 'worktree', 'prune');
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${target}\n`);
    git(repo, 'worktree', 'remove', '--force', target);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(registration)).toBe(false);
  });

  it('numbers the name when it is taken and makes it safe for git; prune forgets a registration whose directory is gone', () => {
    mkdirSync(join(repo, '.git', 'worktrees', 'fork'), { recursive: true });
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    const first = writeWorkTreeRegistration(join(repo, '.git'), join(dir, 'a', 'fork'), head());
    const second = writeWorkTreeRegistration(join(repo, '.git'), join(dir, 'b', 'fork'), head());
    expect([first, second]).toEqual([join(repo, '.git', 'worktrees', 'fork1'), join(repo, '.git', 'worktrees', 'fork2')]);
    rmSync(join(repo, '.git', 'worktrees', 'fork'), { recursive: true });
    const odd = writeWorkTreeRegistration(join(repo, '.git'), join(dir, '.my fork:1.lock'), head());
    expect(odd).toBe(join(repo, '.git', 'worktrees', 'my-fork-1-lock'));
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree .*$/gm)).toHaveLength(4);
    rmSync(join(dir, 'b'), { recursive: true });
    git(repo, 'worktree', 'prune');
    expect(existsSync(second)).toBe(false);
    expect(existsSync(first)).toBe(true);
  });

  it('leaves nothing registered when the work tree directory cannot be made', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(() => writeWorkTreeRegistration(join(repo, '.git'), join(dir, 'file', 'fork'), head())).toThrow();
    expect(existsSync(join(repo, '.git', 'worktrees', 'fork'))).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree .*$/gm)).toHaveLength(1);
  });
});

describe('the repository settings a fork reads before registering its work tree', () => {
  it('sends per-work-tree config to git worktree add, and a split index or a key set without a value to a fresh index', async () => {
    expect(await gitFeatures(repo)).toEqual({ indexNotPortable: false, registerWithGit: false });
    git(repo, 'config', 'extensions.worktreeConfig', 'true');
    expect(await gitFeatures(repo)).toEqual({ indexNotPortable: false, registerWithGit: true });
    writeFileSync(join(repo, '.git', 'config'), `${readFileSync(join(repo, '.git', 'config'), 'utf8')}[core]\n\tsplitIndex\n`);
    expect(await gitFeatures(repo)).toEqual({ indexNotPortable: true, registerWithGit: true });
    git(repo, 'config', 'extensions.worktreeConfig', 'false');
    git(repo, 'config', 'core.splitIndex', 'false');
    git(repo, 'config', 'core.fsmonitor', '.git/hooks/fsmonitor-watchman');
    expect(await gitFeatures(repo)).toEqual({ indexNotPortable: true, registerWithGit: false });
  });
});
