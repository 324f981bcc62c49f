import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from '../blobs/index.js';
import { PRIMARY_ROOT, sessionWorkspace } from '../checkpoint/index.js';
import type { Session } from '../model/index.js';
import type { Store } from '../store/index.js';
import { parseWorkspacePath, scanWorkspace } from '../workspace/index.js';
import { ForkHasUnrecordedChangesError, NotAnIsolatedForkError } from './fork-errors.js';
import { git } from './git-checkout.js';
import { discardWorkTree } from './isolated-workspace.js';

/** What {@link discardFork} removed. */
export interface DiscardForkResult {
  sessionId: string;
  /** The fork's own directories that were deleted (its workdir, and copies of other roots). */
  removed: string[];
  /** Directories that were already gone. */
  missing: string[];
  /** Files deleted although their content was recorded nowhere (only with `force`). */
  unrecorded: string[];
}

/**
 * Deletes an isolated fork's own directories and, for a linked git work tree, its registration in
 * the parent's repository (as `git worktree remove --force` does). The session and its history
 * stay. Refused with `FORK_HAS_UNRECORDED_CHANGES`, nothing deleted, when a tracked file there
 * holds content that neither the store (a checkpoint or snapshot kept it) nor the work tree's git
 * HEAD holds: deleting would lose it. `force` deletes anyway and lists those files. Ignored paths
 * (copies or links of the parent's dependencies and build output) are not examined.
 */
export async function discardFork(input: { store: Store; blobs: BlobStore; sessionId: string; force?: boolean }): Promise<DiscardForkResult> {
  const session = await input.store.getSession(input.sessionId);
  const fork = session.metadata.fork as { strategy?: unknown } | undefined;
  const strategy = typeof fork?.strategy === 'string' ? fork.strategy : null;
  if (strategy !== 'isolated' || session.workdir === null) throw new NotAnIsolatedForkError({ sessionId: session.id, strategy });
  const dirs = await ownDirectories(input.store, session);
  const present = dirs.filter((dir) => existsSync(dir));
  const unrecorded = present.length > 0 ? await unrecordedFiles(input.store, input.blobs, session) : [];
  if (unrecorded.length > 0 && !input.force) throw new ForkHasUnrecordedChangesError({ sessionId: session.id, dir: session.workdir, paths: unrecorded });
  for (const dir of present) discardWorkTree(dir);
  return { sessionId: session.id, removed: present, missing: dirs.filter((dir) => !present.includes(dir)), unrecorded };
}

/** The fork's workdir, and each root the fork copied (its directory differs from the parent's root of that name). */
async function ownDirectories(store: Store, session: Session): Promise<string[]> {
  const dirs = [session.workdir!];
  const parent = session.parentSessionId === null ? null : await store.getSession(session.parentSessionId).catch(() => null);
  const rootsOf = (owner: Session | null) =>
    new Map(
      (Array.isArray(owner?.metadata.roots) ? owner.metadata.roots : []).flatMap((root) => {
        const { name, dir } = (root ?? {}) as { name?: unknown; dir?: unknown };
        return typeof name === 'string' && typeof dir === 'string' ? [[name, dir] as const] : [];
      }),
    );
  const parentRoots = rootsOf(parent);
  for (const [name, dir] of rootsOf(session)) if (parentRoots.has(name) && parentRoots.get(name) !== dir && !dirs.includes(dir)) dirs.push(dir);
  return dirs;
}

/** Tracked files of the fork whose content is in neither the blob store nor git's HEAD of its work tree, as workspace keys. */
async function unrecordedFiles(store: Store, blobs: BlobStore, session: Session): Promise<string[]> {
  const workspace = sessionWorkspace(session, store.location);
  const scan = scanWorkspace(workspace, { maxFiles: Number.MAX_SAFE_INTEGER, maxFileSize: Number.MAX_SAFE_INTEGER });
  const candidates: string[] = [];
  const known = await blobs.hasMany([...scan.snapshot.values()].flatMap((entry) => (entry.hash === null ? [] : [entry.hash])));
  // The `.git` file of a linked work tree is git's pointer to its registration, removed with it.
  for (const [key, entry] of scan.snapshot) if (key !== `${PRIMARY_ROOT}:.git` && (entry.hash === null || !known.has(entry.hash))) candidates.push(key);
  for (const skipped of scan.skipped) if (skipped.reason === 'unreadable' || skipped.reason === 'invalid_name') candidates.push(skipped.path);
  if (candidates.length === 0) return [];
  const head = await headBlobs(session.workdir!);
  const rootDir = workspace.root(PRIMARY_ROOT).realDir;
  return candidates
    .filter((key) => {
      const { root, relativePath } = parseWorkspacePath(key);
      const id = root === PRIMARY_ROOT ? head.get(relativePath) : undefined;
      return id === undefined || gitBlobId(join(rootDir, relativePath)) !== id;
    })
    .sort();
}

/** Path → blob id of every file in HEAD of the git work tree at `dir` (empty outside git). */
async function headBlobs(dir: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (!existsSync(join(dir, '.git'))) return ids;
  const listing = (await git(dir, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD'], { allowFailure: true })).toString('utf8');
  for (const line of listing.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [, type, id] = line.slice(0, tab).split(' ');
    if (type === 'blob' && id !== undefined) ids.set(line.slice(tab + 1), id);
  }
  return ids;
}

/** git's object id of the file (or link text) at `path`, or null when it cannot be read. */
function gitBlobId(path: string): string | null {
  try {
    const content = lstatSync(path).isSymbolicLink() ? readlinkSync(path, { encoding: 'buffer' }) : readFileSync(path);
    return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
  } catch {
    return null;
  }
}
