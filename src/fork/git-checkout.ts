import { execFile } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fsyncDirectory } from '../workspace/index.js';
import { GitCommandFailedError } from './fork-errors.js';

/** The parent's git work tree, when its workspace directory is the top of one with a commit. */
export interface GitWorkTree {
  /** The work tree's top directory (real path). */
  top: string;
  /** The commit HEAD names. */
  commit: string;
  /** The branch HEAD is on (null: detached). */
  branch: string | null;
  /** The repository's common directory (`.git` of the main work tree), real path. */
  commonDir: string;
  /** The parent work tree's index file. */
  index: string;
}

/** Why a workspace gets a plain copy instead of a git checkout. */
export type NoGitReason = 'not_a_git_work_tree' | 'subdirectory_of_work_tree' | 'no_commit_yet' | 'git_unavailable' | 'built_from_store';

/** Runs git with `args` in `cwd`; resolves stdout as bytes. Never uses a shell. */
export function git(cwd: string, args: readonly string[], options: { allowFailure?: boolean } = {}): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', ['-C', cwd, ...args], { encoding: 'buffer', maxBuffer: 1 << 30, env: gitEnvironment() }, (error, stdout, stderr) => {
      if (error && !options.allowFailure) reject(new GitCommandFailedError({ args: [...args], cwd, stderr: stderr.toString().trim(), cause: error }));
      else resolvePromise(error ? Buffer.alloc(0) : stdout);
    });
  });
}

/** The caller's environment without the variables that would point git at another repository or index. */
export function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_PREFIX']) delete env[name];
  return env;
}

/** The top, common directory, index path, HEAD commit and branch, one a line. */
export const WORK_TREE_QUESTION = ['rev-parse', '--show-toplevel', '--git-common-dir', '--git-path', 'index', 'HEAD', '--abbrev-ref', 'HEAD'] as const;

/**
 * Finds the git work tree `dir` is the top of, or says why it is not one to check out: not in a
 * work tree, a subdirectory of one (the fork would need the rest of the repository), no commit yet
 * (nothing to check out), or no `git` on this machine.
 */
export async function findGitWorkTree(dir: string): Promise<GitWorkTree | { reason: NoGitReason }> {
  let out: string;
  try {
    out = (await git(dir, WORK_TREE_QUESTION)).toString();
  } catch (error) {
    if ((error as { cause?: { code?: unknown } }).cause?.code === 'ENOENT') return { reason: 'git_unavailable' };
    const inTree = (await git(dir, ['rev-parse', '--show-toplevel'], { allowFailure: true })).toString().trim();
    if (inTree === '') return { reason: 'not_a_git_work_tree' };
    return { reason: realpathSync(inTree) === realpathSync(dir) ? 'no_commit_yet' : 'subdirectory_of_work_tree' };
  }
  return parseWorkTree(dir, out);
}

/** The answer of {@link WORK_TREE_QUESTION} (asked in `dir`, answered with status 0) as a {@link GitWorkTree}. */
export function parseWorkTree(dir: string, out: string): GitWorkTree | { reason: NoGitReason } {
  const [top, common, index, commit, branch] = out.split('\n');
  if (!top || !common || !index || !commit || !branch) return { reason: 'not_a_git_work_tree' };
  if (realpathSync(top) !== realpathSync(dir)) return { reason: 'subdirectory_of_work_tree' };
  return {
    top: realpathSync(top),
    commit,
    branch: branch === 'HEAD' ? null : branch,
    commonDir: realpathSync(resolve(dir, common)),
    index: resolve(dir, index),
  };
}

/** One path of git's index: its mode (`160000` is a submodule) and path. */
export interface IndexEntry {
  mode: string;
  path: string;
}

/** What git sees in the parent's work tree, in one pass per question (NUL-separated, names unquoted). */
export interface GitListing {
  /** Every path in the index (tracked), force-added ignored files included. */
  tracked: IndexEntry[];
  /** Untracked paths no ignore rule matches (a nested repository appears as `dir/`). */
  untracked: string[];
  /** Ignored untracked paths: a wholly ignored directory once, as `dir/`. */
  ignored: string[];
}

/** Lists `top` with git; `options.tracked: false` leaves the index out (the caller read it itself). */
export async function listWorkTree(top: string, options: { tracked?: boolean } = {}): Promise<GitListing> {
  const [stage, untracked, ignored] = await Promise.all([
    options.tracked === false ? Promise.resolve(Buffer.alloc(0)) : git(top, LISTING_QUESTIONS.tracked),
    git(top, LISTING_QUESTIONS.untracked),
    git(top, LISTING_QUESTIONS.ignored),
  ]);
  return parseListing(stage, untracked, ignored);
}

/** What {@link listWorkTree} asks git, NUL-separated: the index, the untracked paths, the ignored ones. */
export const LISTING_QUESTIONS = {
  tracked: ['ls-files', '-z', '--stage'],
  untracked: ['ls-files', '-z', '--others', '--exclude-standard'],
  ignored: ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
} as const;

/** The answers to {@link LISTING_QUESTIONS} as a {@link GitListing} (`stage` empty: the index was not asked for). */
export function parseListing(stage: Buffer, untracked: Buffer, ignored: Buffer): GitListing {
  const split = (buffer: Buffer) =>
    buffer
      .toString('utf8')
      .split('\0')
      .filter((entry) => entry !== '');
  const tracked: IndexEntry[] = [];
  const seen = new Set<string>();
  for (const line of split(stage)) {
    // `<mode> <object> <stage>\t<path>`; a conflicted path has several stages, listed once.
    const tab = line.indexOf('\t');
    const path = line.slice(tab + 1);
    if (seen.has(path)) continue;
    seen.add(path);
    tracked.push({ mode: line.slice(0, line.indexOf(' ')), path });
  }
  return { tracked, untracked: split(untracked), ignored: split(ignored) };
}

/** The parent repository's settings that decide how a fork's work tree is registered and indexed. */
export interface GitFeatures {
  /** The index uses a feature (split or sparse index, fsmonitor, sparse checkout) that a copy of the file cannot carry over. */
  indexNotPortable: boolean;
  /** Relative work tree paths or per-work-tree config are on: only `git worktree add` registers a work tree as this git expects. */
  registerWithGit: boolean;
}

/** Reads {@link GitFeatures} with one `git config` (keys come back lower-cased). */
export async function gitFeatures(top: string): Promise<GitFeatures> {
  return parseFeatures(await git(top, FEATURES_QUESTION, { allowFailure: true }));
}

/** One `git config` for every setting {@link GitFeatures} depends on (status 1 and no output: none is set). */
export const FEATURES_QUESTION = [
  'config',
  '--get-regexp',
  '^(core\\.splitindex|core\\.sparsecheckout|core\\.fsmonitor|index\\.sparse|worktree\\.userelativepaths|extensions\\.worktreeconfig)$',
] as const;

/** The answer to {@link FEATURES_QUESTION} as {@link GitFeatures}. */
export function parseFeatures(output: Buffer): GitFeatures {
  const on = (value: string) => /^(true|1|yes|on)$/i.test(value);
  const features: GitFeatures = { indexNotPortable: false, registerWithGit: false };
  for (const line of output.toString().split('\n')) {
    if (line.trim() === '') continue;
    // A key set without a value (`[core] splitIndex`) is true.
    const space = line.indexOf(' ');
    const key = space === -1 ? line.trim() : line.slice(0, space);
    const value = space === -1 ? 'true' : line.slice(space + 1).trim();
    if (key === 'worktree.userelativepaths' || key === 'extensions.worktreeconfig') features.registerWithGit ||= on(value);
    // fsmonitor may name a hook program rather than a boolean: anything but false counts.
    else if (key === 'core.fsmonitor') features.indexNotPortable ||= !/^(false|0|no|off)$/i.test(value);
    else features.indexNotPortable ||= on(value);
  }
  return features;
}

/**
 * Registers the linked work tree being built at `dir` (already filling with files) on `commit`,
 * detached, with `git worktree add --no-checkout`: for the configurations
 * {@link writeWorkTreeRegistration} does not cover. git wants an empty directory, so it is given
 * one named as `dir` (git names the registration after it) in `besideDir`, a staging directory
 * of its own that the caller has not created; its `.git` file is then moved into `dir` and the
 * registration pointed at `dir`, as {@link moveRegistration} does after the final rename, and
 * `besideDir` is removed. A fork killed in between leaves a registration pointing into a staging
 * directory of a dead process, which the next fork removes. This writes
 * `<commonDir>/worktrees/<name>/` in the parent's repository; nothing else of the parent's changes.
 * Its index is filled by {@link fillIndex}.
 */
export async function registerWorkTreeBeside(parentTop: string, dir: string, commit: string, besideDir: string): Promise<void> {
  const placeholder = join(besideDir, basename(dir));
  try {
    mkdirSync(besideDir, { mode: 0o755 });
    await git(parentTop, ['worktree', 'add', '--quiet', '--no-checkout', '--detach', placeholder, commit]);
    try {
      renameSync(join(placeholder, '.git'), join(dir, '.git'));
      moveRegistration(placeholder, dir, { durable: false });
    } catch (error) {
      // Not left registered for a place that is about to go.
      const registration = registrationOf(dir, placeholder) ?? registrationOf(placeholder);
      if (registration !== null && basename(dirname(registration)) === 'worktrees') rmSync(registration, { recursive: true, force: true });
      throw error;
    }
  } finally {
    rmSync(besideDir, { recursive: true, force: true });
  }
}

/**
 * Gives the work tree at `dir` (registered by {@link registerWorkTree}) its index: a copy of the
 * parent's (`parentIndex`), so what the parent has staged is staged there too and what it tracks
 * (force-added files included) is tracked; the entries' stat data belong to the parent's files, so
 * git re-reads each file once, at the fork's first `git status`, before taking it as unchanged. An
 * index a copy cannot carry over (split or sparse index, fsmonitor, sparse checkout), or none, is
 * read from `commit` instead (`git read-tree`). Returns which.
 */
export async function fillIndex(dir: string, commit: string, parentIndex: string | null): Promise<'copied' | 'read_from_head'> {
  const registration = registrationOf(dir);
  if (parentIndex !== null && registration !== null) {
    try {
      await copyFile(parentIndex, join(registration, 'index'), constants.COPYFILE_EXCL);
      return 'copied';
    } catch {
      // no index yet, or unreadable: fall back to the commit's tree
    }
  }
  await git(dir, ['read-tree', commit]);
  return 'read_from_head';
}

/**
 * After the work tree moved from `from` (its staging place) to `dir`: points its registration at
 * `dir`, what `git worktree repair` does, without a git process. The registration's `gitdir`
 * file is replaced atomically (a temp file renamed over it) and names `dir/.git` the way it named
 * the old place, absolute or relative; a relative `.git` file in `dir` (git's
 * `worktree.useRelativePaths`) is rewritten to lead to the registration from the new place.
 */
export function moveRegistration(from: string, dir: string, options: { durable: boolean }): void {
  const registration = registrationOf(dir, from);
  if (registration === null)
    throw new GitCommandFailedError({ args: ['worktree', 'repair'], cwd: dir, stderr: `${join(dir, '.git')} names no work tree registration` });
  const gitFile = join(dir, '.git');
  const pointer = /^gitdir: (.*)$/m.exec(readFileSync(gitFile, 'utf8'))![1]!.trim();
  if (!isAbsolute(pointer)) replaceFile(gitFile, `gitdir: ${relative(dir, registration)}\n`, options.durable);
  const previous = readFileSync(join(registration, 'gitdir'), 'utf8').trim();
  replaceFile(join(registration, 'gitdir'), `${isAbsolute(previous) ? gitFile : relative(registration, gitFile)}\n`, options.durable);
}

function replaceFile(path: string, text: string, durable: boolean): void {
  const temp = `${path}.${process.pid}.wp-tmp`;
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeSync(fd, text);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  if (durable) fsyncDirectory(dirname(path));
}

/**
 * `dir`'s work tree registration in the repository (`<commonDir>/worktrees/<id>`), by reading its
 * `.git` file (`base`: the directory a relative `gitdir:` line is relative to, default `dir`).
 */
export function registrationOf(dir: string, base = dir): string | null {
  try {
    const text = readFileSync(join(dir, '.git'), 'utf8');
    const match = /^gitdir: (.*)$/m.exec(text);
    return match ? resolve(base, match[1]!.trim()) : null;
  } catch {
    return null;
  }
}

/**
 * Forgets the registrations of work trees that forks were building when they died: those whose
 * directory lay inside a staging directory (`.…<pid>.<tag>.wp-partial`) of a process that is gone
 * and no longer exists. Registrations of live forks and every other work tree are left alone.
 */
export function removeStaleRegistrations(commonDir: string, isStaging: (name: string) => number | null, isAlive: (pid: number) => boolean): string[] {
  const worktrees = join(commonDir, 'worktrees');
  let names: string[];
  try {
    names = readdirSync(worktrees);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    let gitdir: string;
    try {
      gitdir = readFileSync(join(worktrees, name, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    const staging = dirname(dirname(gitdir));
    const pid = isStaging(basename(staging));
    if (pid === null || pid === process.pid || isAlive(pid) || existsSync(gitdir)) continue;
    rmSync(join(worktrees, name), { recursive: true, force: true });
    removed.push(join(worktrees, name));
  }
  return removed;
}
