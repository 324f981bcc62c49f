import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { BlobStore } from '../blobs/index.js';
import { PRIMARY_ROOT } from '../checkpoint/index.js';
import { InvalidArgumentError, isProcessAlive, WaypointError, type Checkpoint } from '../model/index.js';
import { FileWriteFailedError, fsyncDirectory, scanWorkspace, type Workspace } from '../workspace/index.js';
import { errorReason } from '../workspace/error-reason.js';
import { checkMaterializeTarget, createDirectories, removeStaleStaging, stagingPathFor } from '../workspace/materialize-target.js';
import { ForkStateUnavailableError } from './fork-errors.js';
import { CopyPool, type SharedIndex, type WorkerCopyResult } from './copy-workers.js';
import { type CopyJob, countWorkerResults, emptyOutcome, syncTree, WORKER_THRESHOLD, WORKERS, writeJobs } from './fork-copy.js';
import { type IndexFile, readIndexFile } from './git-index-reader.js';
import { writeIndexCopy } from './git-index-writer.js';
import { inspectWorkTree, type WorkTreeAnswers } from './git-inspect.js';
import { planTree, WORKSPACE_GROUP, type ListedPath, type PriorState } from './fork-tree-plan.js';
import {
  fillIndex,
  findGitWorkTree,
  moveRegistration,
  registerWorkTreeBeside,
  type GitWorkTree,
  type NoGitReason,
  registrationOf,
  removeStaleRegistrations,
} from './git-checkout.js';
import type { IgnoredMode, IsolatedMaterialization, NotCopiedEntry } from './isolated-report.js';
import { writeWorkTreeRegistration } from './worktree-registration.js';

export type { IsolatedMaterialization } from './isolated-report.js';

const STAGING = /^\..*\.(\d+)\.[0-9a-f]{12}\.wp-partial$/;

/**
 * Builds the child's own directory as the parent's workspace was at the fork point: every file
 * and symlink there now — in a git work tree, exactly what git lists: the index (force-added
 * ignored files included) and the untracked files no ignore rule matches; elsewhere, what the
 * workspace scanner tracks — with every change recorded after the fork point undone from the blob
 * store (each path takes the content and mode it had before its first change after that point).
 * Ignored paths are copied, linked or left out (`ignored`, default `copy`).
 *
 * In a git work tree (the workspace is its top directory and HEAD names a commit) the directory is
 * a linked work tree of the parent's repository, detached at the parent's HEAD commit, as
 * `git worktree add --detach` makes it, with the fork-point files on top: `git status` there shows
 * the parent's uncommitted changes as they were at the fork point. This registers the work tree
 * in the parent's repository (`.git/worktrees/<name>`) and changes nothing else of the parent's:
 * its files, index and refs are only read. Outside git the directory is a plain copy.
 *
 * The tree is built in a hidden staging directory beside the target and renamed into place, so it
 * appears complete or not at all; the staging directory (and the work tree registration) of a
 * fork that was killed is removed by the next fork into the same parent directory. The result
 * lists everything written, each ignored path and what was done with it, and what was not copied
 * and why. Empty directories are not reproduced (like git).
 */
export async function materializeAtForkPoint(input: {
  blobs: BlobStore;
  workspace: Workspace;
  /** The parent's checkpoints after the fork point, oldest first. */
  after: readonly Checkpoint[];
  targetDir: string;
  /** Which tracked root to build (default the primary `workspace` root). */
  root?: string;
  ignored?: IgnoredMode;
  durable?: boolean;
  onProgress?: (done: number, total: number) => void;
}): Promise<IsolatedMaterialization> {
  if (!isAbsolute(input.targetDir))
    throw new InvalidArgumentError({ parameter: 'targetDir', value: input.targetDir, reason: 'must be an absolute directory path' });
  const rootName = input.root ?? PRIMARY_ROOT;
  const root = input.workspace.root(rootName);
  const ignoredMode = input.ignored ?? 'copy';
  const prefix = `${rootName}:`;
  const prior = new Map<string, PriorState>();
  for (const [key, state] of priorStates(input.after)) if (key.startsWith(prefix)) prior.set(key.slice(prefix.length), state);
  const excluded = [...input.workspace.exclusions.dirs, ...(input.workspace.exclusions.protected ?? [])];
  // The top of a git work tree holds `.git`: its index is read here and git lists the rest (read
  // only) while the blobs are read, git confirms it is a work tree, and the tracked files are copied.
  const gitTop = rootName === PRIMARY_ROOT && existsSync(join(root.realDir, '.git'));
  const parentIndex = gitTop ? readIndexFile(indexPathOf(root.realDir)) : null;
  const indexed = parentIndex?.entries ?? null;
  const target = resolve(input.targetDir);
  checkMaterializeTarget(target);
  assertFreshTarget(target);

  const notCopied: NotCopiedEntry[] = [];
  const parent = dirname(target);
  createDirectories(parent, target);
  removeStaleStaging(parent);
  const staging = stagingPathFor(target);
  const building = join(staging, basename(target));
  let placed = false;
  let pool: CopyPool | null = null;
  let earlyRun: Promise<WorkerCopyResult[]> | null = null;
  let early: WorkTreeAnswers | null = null;
  let repositoryPromise: Promise<GitWorkTree | { reason: NoGitReason }> = Promise.resolve({ reason: 'not_a_git_work_tree' });
  let contentsPromise: Promise<Map<string, Buffer>> = Promise.resolve(new Map());
  try {
    mkdirSync(staging, { mode: 0o755 });
    mkdirSync(building, { mode: 0o755 });
    let done = 0;
    let total = 0;
    const progress = () => input.onProgress?.(++done, total);
    // Enough tracked files to be worth worker threads: they start first and are handed every
    // tracked file that needs no listing at once (the messages wait while a worker starts), so the
    // copy is under way before any git process is spawned.
    let earlyJobs: EarlyJob[] = [];
    // The fork's index: the parent's, with the stat data of the copies the workers make of clean files.
    let sharedIndex: SharedIndex | null = null;
    if (parentIndex !== null && parentIndex.entries.length >= WORKER_THRESHOLD) {
      pool = new CopyPool(building, WORKERS);
      earlyJobs = copiedAtOnce(parentIndex, root.realDir, prior, excluded);
      total = earlyJobs.length;
      sharedIndex = { buffer: new SharedArrayBuffer(parentIndex.data.length), racyFrom: parentIndex.mtimeSeconds };
      new Uint8Array(sharedIndex.buffer).set(parentIndex.data);
      earlyRun = pool.run(
        earlyJobs,
        (count) => {
          for (let index = 0; index < count; index++) progress();
        },
        { index: sharedIndex },
      );
      earlyRun.catch(() => {});
    }
    // git lists the rest (read only) and confirms the work tree while the workers copy and the blobs are read.
    early = gitTop ? inspectWorkTree(root.realDir, { tracked: indexed === null }) : null;
    if (early) repositoryPromise = early.repository;
    else if (rootName === PRIMARY_ROOT) repositoryPromise = findGitWorkTree(root.realDir);
    contentsPromise = priorContents(input.blobs, prior);
    repositoryPromise.catch(() => {});
    contentsPromise.catch(() => {});
    const features = early ? await early.features : null;
    let repository = await repositoryPromise;
    if (!('commit' in repository) || !features) {
      // Not a work tree to check out after all: a plain copy, from scratch.
      if (pool) await pool.close();
      if (earlyRun) await earlyRun.catch(() => {});
      pool = null;
      earlyRun = null;
      earlyJobs = [];
      sharedIndex = null;
      rmSync(building, { recursive: true, force: true });
      mkdirSync(building, { mode: 0o755 });
      if ('commit' in repository) repository = { reason: 'not_a_git_work_tree' };
    }
    const gitTree = 'commit' in repository ? repository : null;
    if (gitTree) removeStaleRegistrations(gitTree.commonDir, stagingPid, isProcessAlive);
    let listed: ListedPath[];
    let ignoredPaths: string[];
    let index: 'copied' | 'read_from_head' | null = null;
    if (gitTree && early && features) {
      // git lists the parent's work tree while the new one is registered.
      if (!features.registerWithGit) writeWorkTreeRegistration(gitTree.commonDir, building, gitTree.commit, { dirExists: true });
      else await registerWorkTreeBeside(gitTree.top, building, gitTree.commit, stagingPathFor(target));
      const listing = await early.listing;
      // A directory git tracks files in that is a link or a file now (listed as untracked or
      // ignored): the workers followed it. What they copied below it is taken back, so the plan
      // makes it what it is now and reports the tracked paths below it, as for any other conflict.
      const displaced = displacedByListing(earlyJobs, [...listing.untracked, ...listing.ignored]);
      if (displaced.length > 0 && earlyRun) {
        await earlyRun;
        for (const path of displaced) rmSync(join(building, path), { recursive: true, force: true });
        const below = (path: string) => displaced.some((dir) => path.startsWith(`${dir}/`));
        // Their entries keep the parent's stat data: what they described was not copied after all.
        for (const job of earlyJobs) {
          if (job.entry >= 0 && sharedIndex && below(job.path))
            new Uint8Array(sharedIndex.buffer).set(parentIndex!.data.subarray(job.entry, job.entry + 40), job.entry);
        }
        // Old job index → its index among the jobs kept.
        const kept = new Map<number, number>();
        earlyJobs.forEach((job, index) => {
          if (!below(job.path)) kept.set(index, kept.size);
        });
        const results = (await earlyRun).flatMap((result) => (kept.has(result.index) ? [{ ...result, index: kept.get(result.index)! }] : []));
        earlyJobs = earlyJobs.filter((job) => !below(job.path));
        earlyRun = Promise.resolve(results);
      }
      const written = new Set(earlyJobs.map((job) => job.path));
      listed = [];
      for (const entry of indexed ?? listing.tracked) {
        if (entry.mode === '160000') notCopied.push({ path: entry.path, reason: 'submodule' });
        else if (!written.has(entry.path)) listed.push({ path: entry.path });
      }
      for (const path of listing.untracked) listed.push(path.endsWith('/') ? { path: path.slice(0, -1), directory: true } : { path });
      ignoredPaths = listing.ignored;
      // A copy of the parent's index with the copies' stat data is written once they are made (below).
      if (sharedIndex === null || features.indexNotPortable)
        index = await fillIndex(building, gitTree.commit, features.indexNotPortable ? null : gitTree.index);
      else index = 'copied';
    } else {
      ({ listed, ignoredPaths } = scannedPaths(input.workspace, rootName, prior, notCopied));
    }
    const contents = await contentsPromise;
    const written = new Set(earlyJobs.map((job) => job.path));
    const plan = planTree({ rootDir: root.realDir, listed, ignored: ignoredPaths, ignoredMode, prior, contents, excluded, notCopied, written });
    total += plan.jobs.length;
    const outcome = emptyOutcome();
    // Both finish before anything is thrown, so nothing writes into the directory once it is cleaned up.
    const [late, first] = await Promise.allSettled([
      writeJobs(building, plan.jobs, progress, { outcome, ...(pool ? { pool } : {}) }),
      earlyRun ?? Promise.resolve([]),
    ]);
    if (late.status === 'rejected') throw late.reason;
    if (first.status === 'rejected') throw first.reason;
    countWorkerResults(building, earlyJobs, first.value, outcome);
    if (gitTree && sharedIndex && index === 'copied' && !features?.indexNotPortable)
      writeIndexCopy(registrationOf(building)!, new Uint8Array(sharedIndex.buffer));
    // Every batch has finished, so the idle workers write nothing more: they stop without being waited for.
    if (pool) void pool.close();
    pool = null;
    if (input.durable ?? true) await syncTree(staging);
    renameSync(building, target);
    placed = true;
    rmSync(staging, { recursive: true, force: true });
    if (gitTree) moveRegistration(building, target, { durable: input.durable ?? true });
    if (input.durable ?? true) fsyncDirectory(parent);
    for (const skipped of outcome.skipped) {
      // An ignored path that vanished since git listed it is no loss; a tracked one is reported.
      if (skipped.group === WORKSPACE_GROUP || skipped.reason !== 'missing')
        plan.notCopied.push({ path: skipped.path, reason: skipped.reason, ...(skipped.detail === undefined ? {} : { detail: skipped.detail }) });
    }
    const ignored = plan.ignored.map((entry, group) => ({ ...entry, files: outcome.files.get(group) ?? 0, bytes: outcome.bytes.get(group) ?? 0 }));
    return {
      dir: target,
      files: outcome.files.get(WORKSPACE_GROUP) ?? 0,
      bytes: outcome.bytes.get(WORKSPACE_GROUP) ?? 0,
      restored: plan.restored.map((path) => `${prefix}${path}`),
      git: gitTree
        ? {
            worktree: target,
            commit: gitTree.commit,
            parentBranch: gitTree.branch,
            registration: registrationOf(target) ?? '',
            index: index ?? 'read_from_head',
          }
        : null,
      gitSkipped: gitTree ? null : (repository as { reason: IsolatedMaterialization['gitSkipped'] }).reason,
      ignoredMode,
      ignored,
      notCopied: plan.notCopied.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    };
  } catch (error) {
    if (pool) await pool.close();
    if (earlyRun) await earlyRun.catch(() => {});
    discardWorkTree(placed ? target : building);
    rmSync(staging, { recursive: true, force: true });
    if (WaypointError.is(error)) throw error;
    throw new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
  }
}

/** The index file of the work tree whose top is `top`: `.git/index`, or in a linked work tree its registration's. */
function indexPathOf(top: string): string {
  const dotGit = join(top, '.git');
  return isDirectory(dotGit) ? join(dotGit, 'index') : join(registrationOf(top) ?? dotGit, 'index');
}

/**
 * The tracked files a fork copies before git has listed the rest: every index entry as it is on
 * disk now, except submodules, the store's own files, and any path a change after the fork point
 * touched, lies below or above (those are left to {@link planTree}, which decides their conflicts).
 */
function copiedAtOnce(parentIndex: IndexFile, rootDir: string, prior: ReadonlyMap<string, PriorState>, excluded: readonly string[]): EarlyJob[] {
  const entries = parentIndex.entries;
  const touched = new Set<string>();
  for (const path of prior.keys()) {
    touched.add(path);
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) touched.add(path.slice(0, slash));
  }
  // Only the excluded paths inside the work tree can match a tracked path (the store usually lies elsewhere).
  const inside = excluded.filter((dir) => dir.startsWith(`${rootDir}/`)).map((dir) => dir.slice(rootDir.length + 1));
  const jobs: EarlyJob[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    const path = entry.path;
    if (entry.mode === '160000' || touched.has(path)) continue;
    let skip = false;
    if (prior.size > 0) {
      for (let slash = path.indexOf('/'); slash !== -1 && !skip; slash = path.indexOf('/', slash + 1)) skip = prior.has(path.slice(0, slash));
    }
    for (let index = 0; index < inside.length && !skip; index++) skip = path === inside[index] || path.startsWith(`${inside[index]}/`);
    if (!skip) jobs.push({ kind: 'copy', path, source: `${rootDir}/${path}`, group: WORKSPACE_GROUP, entry: parentIndex.offsets[index]! });
  }
  return jobs;
}

type CopyFileJob = Extract<CopyJob, { kind: 'copy' }>;
/** A tracked file copied at once, with where its entry lies in the parent's index (-1: its stat data are not refreshed). */
type EarlyJob = CopyFileJob & { entry: number };

/** The untracked or ignored paths (a directory ends with `/`) that some early copy lies below. */
function displacedByListing(jobs: readonly CopyFileJob[], listed: readonly string[]): string[] {
  if (listed.length === 0 || jobs.length === 0) return [];
  const directories = new Set<string>();
  for (const job of jobs) {
    for (let slash = job.path.lastIndexOf('/'); slash !== -1; slash = job.path.lastIndexOf('/', slash - 1)) {
      const dir = job.path.slice(0, slash);
      if (directories.has(dir)) break;
      directories.add(dir);
    }
  }
  return listed.map((path) => (path.endsWith('/') ? path.slice(0, -1) : path)).filter((path) => directories.has(path));
}

/**
 * Removes a fork's directory made by {@link materializeAtForkPoint}, and when it is a linked git work
 * tree, its registration in the parent's repository (as `git worktree remove --force` does), so the
 * repository does not keep a work tree that is gone.
 */
export function discardWorkTree(dir: string): void {
  const registration = registrationOf(dir);
  // What `git worktree remove --force` does: the registration (only one under `worktrees/`) and the directory.
  if (registration !== null && basename(dirname(registration)) === 'worktrees') rmSync(registration, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}

/** Outside git: the scanner's tracked files, and the ignored paths it reports (directories once). */
function scannedPaths(workspace: Workspace, rootName: string, prior: ReadonlyMap<string, PriorState>, notCopied: NotCopiedEntry[]) {
  const prefix = `${rootName}:`;
  const scan = scanWorkspace(workspace, { roots: [rootName], reportIgnored: true, maxFiles: Number.MAX_SAFE_INTEGER, maxFileSize: 0 });
  const listed: ListedPath[] = [];
  for (const key of scan.snapshot.keys()) if (key.startsWith(prefix)) listed.push({ path: key.slice(prefix.length) });
  const ignoredPaths: string[] = [];
  const rootDir = workspace.root(rootName).realDir;
  for (const skipped of scan.skipped) {
    if (!skipped.path.startsWith(prefix)) continue;
    const path = skipped.path.slice(prefix.length);
    if (skipped.reason === 'ignored') ignoredPaths.push(isDirectory(join(rootDir, path)) ? `${path}/` : path);
    else if (prior.has(path)) continue;
    else if (skipped.reason === 'unreadable' || skipped.reason === 'not_regular' || skipped.reason === 'invalid_name' || skipped.reason === 'store_file')
      notCopied.push({ path, reason: skipped.reason, ...(skipped.detail === undefined ? {} : { detail: skipped.detail }) });
  }
  return { listed, ignoredPaths };
}

export async function priorContents(blobs: BlobStore, prior: ReadonlyMap<string, PriorState>): Promise<Map<string, Buffer>> {
  const hashes = [...new Set([...prior.values()].flatMap((state) => (state.exists ? [state.hash] : [])))];
  try {
    return hashes.length > 0 ? await blobs.getMany(hashes) : new Map();
  } catch (error) {
    if (!WaypointError.is(error)) throw error;
    const paths = [...prior].filter(([, state]) => state.exists).map(([path]) => ({ path, checkpointId: '', reason: error.message }));
    throw new ForkStateUnavailableError({ paths, corrupt: WaypointError.is(error, 'BLOB_CORRUPT'), cause: error });
  }
}

/**
 * Peels the changes after the fork point newest → oldest: the last assignment a path gets is the
 * state before its first change after the fork point. A rename/move puts the content back at its
 * source and nothing at its target. Changes that kept no content cannot be peeled.
 */
export function priorStates(after: readonly Checkpoint[]): Map<string, PriorState> {
  const prior = new Map<string, PriorState>();
  const missing: Array<{ path: string; checkpointId: string; reason: string }> = [];
  for (const checkpoint of [...after].reverse()) {
    if (checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir') continue;
    if (checkpoint.status === 'skipped') {
      missing.push({ path: checkpoint.path, checkpointId: checkpoint.id, reason: `no content was kept (${checkpoint.skipReason ?? 'skipped'})` });
      continue;
    }
    const before: PriorState = checkpoint.beforeHash === null ? { exists: false } : { exists: true, hash: checkpoint.beforeHash, mode: checkpoint.beforeMode };
    prior.set(checkpoint.path, before);
    if ((checkpoint.op === 'rename' || checkpoint.op === 'move') && checkpoint.toPath !== null) prior.set(checkpoint.toPath, { exists: false });
  }
  if (missing.length > 0) throw new ForkStateUnavailableError({ paths: missing });
  return prior;
}

export function assertFreshTarget(target: string): void {
  try {
    if (lstatSync(target).isDirectory() && readdirSync(target).length === 0) return;
  } catch {
    return; // missing: created by the rename
  }
  throw new InvalidArgumentError({
    code: 'MATERIALIZE_TARGET_NOT_EMPTY',
    parameter: 'targetDir',
    value: target,
    reason: 'already exists and is not an empty directory; choose a new directory for the materialized tree',
  });
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function stagingPid(name: string): number | null {
  const match = STAGING.exec(name);
  return match ? Number(match[1]) : null;
}
