import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { BlobPin, BlobStore } from '../../blobs/index.js';
import { hashContent, type Journal, type JournalItem } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import {
  BACKUP_SUFFIX,
  deletePath,
  HIDDEN_NAME_KEPT,
  installIfAbsent,
  isLinkMode,
  LINK_MODE,
  prepareFileWrite,
  sameMode,
  replaceIf,
  type DisplacedFile,
  type HeldFile,
  type ResolvedPath,
  type Workspace,
  unlinkQuietly,
} from '../../workspace/index.js';
import type { UnrestoredFile } from './errors/index.js';
import { preservedPinOwner } from './preserved-contents.js';

/** What a rollback could not put back, with what it did put back, what it left and what it kept. */
export type RestoreOutcome = UnrestoredFile[] & {
  restored?: string[];
  /**
   * Paths left as they were because they hold neither their content before the apply nor what the
   * apply wrote: someone saved them meanwhile, and their content wins.
   */
  left?: string[];
  /** Contents taken off a path that someone wrote again before they could be put back: stored and pinned. */
  preserved?: PreservedContent[];
  /** Held from before each preserved content is stored until {@link pinPreserved} pinned them all. */
  pins?: BlobPin[];
};

/** A content that is no file's content any more, stored in the blob store so it is not lost. */
export interface PreservedContent {
  path: string;
  hash: string;
  /**
   * What it was: permission bits of a regular file, or `LINK_MODE | bits` of a symbolic link
   * (whose content is its target text), so it is put back as the same kind. Null when unknown.
   */
  mode: number | null;
}

/** One path to put back: what it held before the apply, and what the apply wrote there. */
export interface RestoreTarget {
  path: string;
  resolved: ResolvedPath;
  expectedHash: string | null;
  expectedMode: number | null;
  targetHash: string | null;
  targetMode: number | null;
  /** The content before, when the caller has it in memory (else it is read from the blob store). */
  expectedContent?: Buffer | null;
  /**
   * Directories the apply created (workspace keys, deepest first): one at this path, empty again,
   * is removed so what was there before (a symbolic link the apply replaced) can come back.
   */
  createdDirectories?: readonly string[];
}

/**
 * Puts one path back to its content before the apply — only when it still holds what the apply
 * wrote (compared and replaced in one step, see `replaceIf`). A path that holds its content
 * before is left; one that holds anything else (a person's later save) is left too and reported in
 * `left`: a rollback never overwrites content it did not write.
 */
export async function restorePath(target: RestoreTarget, blobs: BlobStore, durable: boolean, outcome: RestoreOutcome): Promise<void> {
  const modeOnly = target.expectedHash === target.targetHash;
  const holds = (held: HeldFile, hash: string | null, mode: number | null): boolean =>
    held.exists
      ? hash !== null &&
        hashContent(held.content) === hash &&
        isLinkMode(held.mode) === isLinkMode(mode) &&
        (!modeOnly || mode === null || sameMode(held.mode, mode))
      : hash === null;
  let current = readHeld(target.resolved);
  if (current === 'other' && target.expectedHash !== null && removeCreatedAt(target)) current = readHeld(target.resolved);
  if (current === 'other') {
    // A directory where the apply expected no file: a directory it never replaced, or one a
    // rollback already created again. Anything else (a link, a directory over a file) is not its own.
    if (!(target.expectedHash === null && isDirectory(target.resolved))) await leave(target, blobs, outcome);
    return;
  }
  if (holds(current, target.expectedHash, target.expectedMode)) return;
  if (!holds(current, target.targetHash, target.targetMode)) {
    await leave(target, blobs, outcome);
    return;
  }
  let write = null;
  if (target.expectedHash !== null) {
    const content = target.expectedContent ?? (await blobs.get(target.expectedHash));
    write = prepareFileWrite(target.resolved, content, {
      ...(target.expectedMode === null ? {} : { mode: target.expectedMode }),
      durable,
      createParents: true,
    });
  }
  try {
    const result = replaceIf(target.resolved, (held) => holds(held, target.targetHash, target.targetMode), write, { durable });
    if (result.replaced) outcome.restored!.push(target.path);
    // Someone wrote the path in the instant between taking the apply's file off it and putting the
    // content before back (or just before): theirs stays, and the content before is kept aside.
    else if (!(result.reason === 'refused' && holds(result.current, target.expectedHash, target.expectedMode))) await leave(target, blobs, outcome);
    if (result.displaced) await preserveParked(blobs, target.path, result.displaced, outcome);
  } finally {
    write?.abort();
  }
}

/**
 * Leaves a path that holds neither its content before the apply nor what the apply wrote: someone
 * wrote it since, and theirs stays. What it held before the apply is then no file's content, and
 * the journal — rolled back, so no rewind record names it — would be all that knows it: it is kept
 * aside on record (`preserved`, listed by the session's rewind status and restorable), as the
 * content a serial order would have had the later writer replace. Not kept when it was never
 * stored: the journal's contents are stored before any file is touched, so the apply never got
 * this far.
 */
async function leave(target: RestoreTarget, blobs: BlobStore, outcome: RestoreOutcome): Promise<void> {
  outcome.left!.push(target.path);
  const hash = target.expectedHash;
  if (hash === null || outcome.preserved!.some((kept) => kept.path === target.path && kept.hash === hash)) return;
  if (target.expectedContent == null && !(await blobs.has(hash))) return;
  outcome.preserved!.push({ path: target.path, hash, mode: target.expectedMode });
}

/** Removes the empty directories the apply created at and below `target`'s path; true if its own went. */
function removeCreatedAt(target: RestoreTarget): boolean {
  const own = (target.createdDirectories ?? []).filter((key) => key === target.path || key.startsWith(`${target.path}/`));
  if (!own.includes(target.path)) return false;
  const root = target.resolved.root.realDir;
  for (const key of own) {
    try {
      rmdirSync(join(root, key.slice(key.indexOf(':') + 1)));
    } catch {
      return false; // filled meanwhile (someone else's file): it stays
    }
  }
  return true;
}

/**
 * Puts every path a journal names back to its content before the apply, newest item first, by
 * {@link restorePath}'s rule: only paths that still hold what the journal's apply wrote. Files a
 * killed apply left under hidden names beside a path (`.<name>.<hex>.wp-old`, taken off the path
 * and not yet put back or removed) are put back when the path is empty, else stored; temp files
 * (`.<name>.<hex>.wp-tmp`) are removed. Paths the journal does not name are never touched.
 */
export async function restoreJournalItems(journal: Journal, workspace: Workspace, blobs: BlobStore, durable = true): Promise<RestoreOutcome> {
  const outcome = emptyOutcome();
  for (const original of [...journal.items].reverse()) {
    const item: JournalItem = { ...original, path: asWorkspaceKey(workspace, original.path) };
    try {
      // The entry itself: a link the apply wrote is replaced, never followed.
      const resolved = workspace.resolveKey(item.path, { followLink: false });
      // Below a link nothing is this path's own: an apply never wrote there.
      if (!resolved.linkInPath) {
        await recoverParked(resolved, item, blobs, outcome);
        removeTempFiles(workspace, item.path, resolved.realPath, durable);
      }
      await restorePath(
        {
          path: item.path,
          resolved,
          expectedHash: item.expectedHash,
          expectedMode: typeof item.expectedMode === 'number' ? item.expectedMode : null,
          targetHash: item.targetHash,
          targetMode: typeof item.mode === 'number' ? item.mode : null,
          createdDirectories: createdDirectoriesOf(journal),
        },
        blobs,
        durable,
        outcome,
      );
    } catch (error) {
      outcome.push({ path: item.path, expectedHash: item.expectedHash, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  removeCreatedDirectories(journal, workspace, durable);
  recreateReplacedDirectories(journal, workspace);
  return outcome;
}

/**
 * Creates again the directories a journal's apply removed to put files in their place (metadata
 * `replacedDirectories`, deepest first), where nothing is at their path now; the files that were
 * in them came back with their own items.
 */
export function recreateReplacedDirectories(journal: Journal, workspace: Workspace): void {
  const keys = journal.metadata.replacedDirectories;
  if (!Array.isArray(keys)) return;
  for (const key of [...keys].reverse()) {
    if (typeof key !== 'string') continue;
    try {
      const resolved = workspace.resolveKey(key);
      mkdirSync(resolved.realPath, { recursive: true });
    } catch {
      // a file is there now (someone else's), or the path is refused: left as it is
    }
  }
}

/** The directories a journal's apply created (metadata `createdDirectories`), deepest first. */
export function createdDirectoriesOf(journal: Journal): string[] {
  const keys = journal.metadata.createdDirectories;
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
}

export function emptyOutcome(): RestoreOutcome {
  const outcome: RestoreOutcome = [];
  outcome.restored = [];
  outcome.left = [];
  outcome.preserved = [];
  return outcome;
}

/**
 * Keeps preserved contents out of GC's reach: pinned by the journal's session (released when the
 * session is deleted), or by the journal itself when it has no session.
 */
export async function pinPreserved(store: Store, journal: Journal, outcome: RestoreOutcome): Promise<void> {
  const preserved = outcome.preserved ?? [];
  try {
    if (preserved.length === 0) return;
    const owner = journal.sessionId ? preservedPinOwner(journal.sessionId, journal.id) : `journal:${journal.id}:preserved`;
    await store.setBlobPins(
      owner,
      preserved.map((entry) => entry.hash),
    );
  } finally {
    // The contents are pinned by their owner now (or the pinning failed): the write pins go.
    for (const pin of outcome.pins?.splice(0) ?? []) await pin.release();
  }
}

/**
 * Stores a parked file's content, then removes the parked file. The content is pinned before it is
 * stored, so a GC in any process cannot sweep it before {@link pinPreserved} gives it its owner.
 */
export async function preserveParked(blobs: BlobStore, path: string, parked: DisplacedFile, outcome: RestoreOutcome): Promise<void> {
  (outcome.pins ??= []).push(await blobs.pin([hashContent(parked.content)]));
  outcome.preserved!.push({ path, hash: await blobs.put(parked.content), mode: parked.mode });
  unlinkSync(parked.parkedAt);
}

/** Files a killed compare-and-replace left parked beside `resolved`: put back into an empty path, else stored and removed. */
async function recoverParked(resolved: ResolvedPath, item: JournalItem, blobs: BlobStore, outcome: RestoreOutcome): Promise<void> {
  const name = basename(resolved.realPath).slice(0, HIDDEN_NAME_KEPT);
  const pattern = new RegExp(`^\\.${escapeText(name)}\\.[0-9a-f]{12}${escapeText(BACKUP_SUFFIX)}$`);
  const directory = dirname(resolved.realPath);
  let siblings: string[];
  try {
    siblings = readdirSync(directory).filter((sibling) => pattern.test(sibling));
  } catch {
    return;
  }
  for (const sibling of siblings) {
    const parked = join(directory, sibling);
    if (installIfAbsent(parked, resolved.realPath)) {
      unlinkQuietly(parked);
      continue;
    }
    const stats = lstatSync(parked);
    const link = stats.isSymbolicLink();
    const content = link ? readlinkSync(parked, { encoding: 'buffer' }) : readFileSync(parked);
    const hash = hashContent(content);
    if (hash === item.expectedHash || hash === item.targetHash)
      unlinkSync(parked); // kept in the blob store already
    else await preserveParked(blobs, item.path, { content, parkedAt: parked, mode: (link ? LINK_MODE : 0) | (stats.mode & 0o7777) }, outcome);
  }
}

function isDirectory(resolved: ResolvedPath): boolean {
  try {
    return lstatSync(resolved.entryPath).isDirectory();
  } catch {
    return false;
  }
}

function readHeld(resolved: ResolvedPath): HeldFile | 'other' {
  if (resolved.linkInPath) return 'other';
  try {
    const stats = lstatSync(resolved.entryPath);
    if (stats.isSymbolicLink())
      return { exists: true, content: readlinkSync(resolved.entryPath, { encoding: 'buffer' }), mode: LINK_MODE | (stats.mode & 0o7777) };
    if (!stats.isFile()) return 'other';
    return { exists: true, content: readFileSync(resolved.entryPath), mode: stats.mode & 0o7777 };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return { exists: false };
    throw error;
  }
}

/**
 * Removes the directories a journal's apply created (metadata `createdDirectories`, deepest first)
 * when they are empty again; one that holds anything now (someone else's file) is left alone.
 */
export function removeCreatedDirectories(journal: Journal, workspace: Workspace, durable: boolean): void {
  const keys = journal.metadata.createdDirectories;
  if (!Array.isArray(keys)) return;
  for (const key of keys) {
    if (typeof key !== 'string') continue;
    try {
      const resolved = workspace.resolveKey(key);
      if (!lstatSync(resolved.entryPath).isDirectory() || readdirSync(resolved.entryPath).length > 0) continue;
      deletePath(resolved, { durable });
    } catch {
      // gone already, refused by confinement, or filled meanwhile: nothing to remove
    }
  }
}

/**
 * Removes the temp files an atomic write to `path` leaves when its process dies between creating
 * and renaming them (`.<name>.<12 hex>.wp-tmp`, see `writeFileAtomic`), so recovery leaves no stray
 * files. Each goes through the workspace, so nothing outside the roots is touched.
 */
function removeTempFiles(workspace: Workspace, path: string, realPath: string, durable: boolean): void {
  const name = basename(realPath).slice(0, HIDDEN_NAME_KEPT);
  const pattern = new RegExp(`^\\.${escapeText(name)}\\.[0-9a-f]{12}\\.wp-tmp$`);
  let siblings: string[];
  try {
    siblings = readdirSync(dirname(realPath));
  } catch {
    return; // the directory is gone: no temp files either
  }
  const prefix = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : `${path.slice(0, path.indexOf(':') + 1)}`;
  // A temp file may be a link (one a rewind was putting back): removed as itself, never followed.
  for (const sibling of siblings) if (pattern.test(sibling)) deletePath(workspace.resolveKey(`${prefix}${sibling}`, { followLink: false }), { durable });
}

function escapeText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Journal paths are workspace keys (`root:relative`); a bare relative path is taken in the primary root. */
function asWorkspaceKey(workspace: Workspace, path: string): string {
  return workspace.roots.some((root) => path.startsWith(`${root.name}:`)) ? path : `${workspace.primaryRoot.name}:${path}`;
}
