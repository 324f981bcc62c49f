import type { NoGitReason } from './git-checkout.js';

/**
 * What an isolated fork does with an ignored path that git (or, outside git, the ignore files)
 * does not track — `node_modules`, build output, caches, `.env` files:
 * - `copy` (default): copied like the rest (a reflink where the file system has them), so the
 *   fork runs `npm test` and whatever it writes there stays in the fork;
 * - `link`: symlinks to the parent's (an ignored directory becomes a directory of links to its
 *   entries, so git's directory rules still ignore it): instant, but writes through them in the
 *   fork (a build, an `npm install` that updates a package) change the parent's files;
 * - `omit`: left out (the fork must reinstall or rebuild it).
 */
export type IgnoredMode = 'copy' | 'link' | 'omit';

/** One ignored path and what the fork did with it. */
export interface IgnoredEntryReport {
  /** Relative to the workspace; a directory ends with `/`. */
  path: string;
  action: IgnoredMode;
  /** Files and symlinks written for it: copied, or links made; 0 when omitted. */
  files: number;
  bytes: number;
  /** Why the action differs from the one asked for, when it does. */
  note?: string;
}

/** Why a path of the parent's workspace is not in the fork. */
export type NotCopiedReason =
  /** Tracked by git but missing from the parent's directory now (deleted without a checkpoint). */
  | 'missing'
  /** A git submodule: not checked out, as `git worktree add` leaves them (`git submodule update` in the fork). */
  | 'submodule'
  /** Waypoint's own store files, never part of a workspace. */
  | 'store_file'
  /** A socket, FIFO, device, or a tracked path that is a directory now. */
  | 'not_regular'
  /** Could not be read (permissions). */
  | 'unreadable'
  /** A name that is not valid UTF-8 (outside git). */
  | 'invalid_name'
  /** Below a path that was a file or a link at the fork point. */
  | 'conflict'
  /** Built from the store: a tracked file whose content the store never kept (too large, unreadable, recorded without content). */
  | 'not_captured';

export interface NotCopiedEntry {
  path: string;
  reason: NotCopiedReason;
  detail?: string;
}

/** The git checkout an isolated fork of a git work tree gets. */
export interface ForkGitCheckout {
  /** The fork's directory: a linked work tree of the parent's repository. */
  worktree: string;
  /** The commit it is on: the parent's HEAD when it forked. The fork is detached there (no branch is created). */
  commit: string;
  /** The branch the parent was on (null: the parent was detached too). */
  parentBranch: string | null;
  /** The registration git keeps in the parent's repository (`.git/worktrees/<name>`); `git worktree remove <worktree>` drops both. */
  registration: string;
  /**
   * `copied`: the fork's index is a copy of the parent's, so what the parent tracks and has staged
   * (force-added files, staged new files) is tracked and staged there too; `read_from_head`: the
   * parent's index could not be carried over (split or sparse index, fsmonitor), so it was read
   * from the commit and the parent's staged changes show as unstaged.
   */
  index: 'copied' | 'read_from_head';
}

/** What an isolated fork materialized, and what it left out and why. */
export interface IsolatedMaterialization {
  dir: string;
  /** Files and symlinks of the workspace written (tracked and untracked, the restored ones included; ignored paths counted in `ignored`). */
  files: number;
  bytes: number;
  /** Paths (`workspace:` keys) whose content came from the blob store (their state at the fork point) instead of the disk. */
  restored: string[];
  /** The git checkout, or null for a plain copy (see `gitSkipped`). */
  git: ForkGitCheckout | null;
  /** Why there is no git checkout (null when there is one). */
  gitSkipped: NoGitReason | null;
  /** The mode asked for ignored paths. */
  ignoredMode: IgnoredMode;
  ignored: IgnoredEntryReport[];
  notCopied: NotCopiedEntry[];
  /**
   * Set when the parent's directory was not reachable from this machine and the tree was built
   * from the store alone: when the parent's workspace scan it started from was saved (null: none
   * was, so only files the session's checkpoints touched are there) and what is never stored.
   */
  fromStore?: { scannedAt: number | null; omitted: string };
}
