import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { moveRegistration, registrationOf } from '../../src/fork/git-checkout.js';

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
