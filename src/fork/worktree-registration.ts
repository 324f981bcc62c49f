import { mkdirSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * Registers a new linked work tree at `dir` (which must not exist yet, or with `dirExists` be a
 * directory the caller made and fills) detached at `commit`, by
 * writing what `git worktree add --no-checkout --detach` writes, without its two git processes:
 * `<commonDir>/worktrees/<name>/` holding `gitdir` (the absolute path of `dir/.git`), `commondir`
 * (`../..`) and `HEAD` (the commit), and `dir/.git` naming that directory. The name is `dir`'s
 * base name made safe for git, numbered when taken; the directory is claimed with an exclusive
 * `mkdir`, as git claims it, so two forks never share one. While it is written a `locked` file
 * keeps `git worktree prune` away, as git's own `initializing` lock does. No reflog is written
 * (git reads a missing one as empty). Returns the registration directory; on failure nothing of
 * it is left behind.
 *
 * Git configurations this layout does not cover (relative work tree paths, per-work-tree config)
 * must go through `git worktree add` instead: the caller checks.
 */
export function writeWorkTreeRegistration(commonDir: string, dir: string, commit: string, options: { dirExists?: boolean } = {}): string {
  const worktrees = join(commonDir, 'worktrees');
  mkdirSync(worktrees, { recursive: true });
  const name = safeName(basename(dir));
  let registration = join(worktrees, name);
  for (let counter = 1; ; counter++) {
    try {
      mkdirSync(registration, { mode: 0o777 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      registration = join(worktrees, `${name}${counter}`);
    }
  }
  try {
    const lock = join(registration, 'locked');
    writeFileSync(lock, 'initializing\n');
    if (!options.dirExists) mkdirSync(dir, { mode: 0o777 });
    writeFileSync(join(registration, 'gitdir'), `${join(realpathSync(dir), '.git')}\n`);
    writeFileSync(join(dir, '.git'), `gitdir: ${registration}\n`);
    writeFileSync(join(registration, 'commondir'), '../..\n');
    writeFileSync(join(registration, 'HEAD'), `${commit}\n`);
    unlinkSync(lock);
    return registration;
  } catch (error) {
    rmSync(registration, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A work tree name git accepts (it becomes part of ref names such as `worktrees/<name>/HEAD`):
 * characters outside `[A-Za-z0-9._-]` become `-`, no leading dot, no `.lock` ending, never empty.
 */
export function safeName(base: string): string {
  let name = base.replace(/[^A-Za-z0-9._-]/g, '-').replace(/\.{2,}/g, '.');
  name = name
    .replace(/^[.-]+/, '')
    .replace(/\.lock$/i, '-lock')
    .replace(/\.+$/, '');
  return name === '' ? 'worktree' : name;
}
