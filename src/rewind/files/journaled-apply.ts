import { lstatSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, relative, sep } from 'node:path';
import type { BlobInput, BlobStore, PendingBlobPut } from '../../blobs/index.js';
import { newId, WaypointError, type Journal, type JournalItem } from '../../model/index.js';
import type { JournalCommitWrites, Store } from '../../store/index.js';
import { deletePath, FileWriteFailedError, fsyncDirectories, movePath, prepareFileWrite, writeFileAtomic, type PreparedFileWrite, type Workspace } from '../../workspace/index.js';
import { readDisk, type ContentState } from './disk-state.js';
import { RewindApplyFailedError, RewindConflictError, RewindUnrecoverableError, type UnrestoredFile } from './errors/index.js';
import type { FileRewindEntryData, FileRewindKind, RewoundFile } from './file-rewind-types.js';
import type { PlannedStep } from './rewind-plan.js';
import { describeMismatch } from './rewind-simulation.js';

/** The journal kind file rewinds write. */
export const FILE_REWIND_JOURNAL = 'file-rewind';
/** The entry type that records an applied file rewind. */
export const FILE_REWIND_ENTRY = 'file-rewind';

/** Journals this process is applying right now; recovery never touches them. */
export const journalsInFlight = new Set<string>();

/** Test hooks: real file-system changes made between steps, to provoke real failures. */
export interface ApplyHooks {
  afterStep?: (path: string, index: number) => void;
  /** Runs between a failure and compensation. */
  beforeCompensation?: () => void;
}

export interface JournaledApplyInput {
  store: Store;
  blobs: BlobStore;
  workspace: Workspace;
  sessionId: string;
  kind: FileRewindKind;
  action: 'rewind' | 'redo';
  undoes: string | null;
  checkpointIds: string[];
  steps: PlannedStep[];
  onCommit?: (() => JournalCommitWrites) | undefined;
  hooks?: ApplyHooks | undefined;
  /** fsync every file and directory (default true). Benchmarks measure the cost with it off. */
  durable?: boolean;
}

/**
 * Applies planned file writes all-or-nothing (invariant 3): every content that will be overwritten
 * goes into the blob store (invariant 2), a journal naming each path's expected and target hash is
 * made durable, files are changed one by one (each re-checked against its expected hash right
 * before), then the journal is committed together with the `file-rewind` entry and the caller's
 * `onCommit` writes. On any failure every path is put back to its expected content, the journal is
 * marked rolled back, and a typed error is raised; if putting back fails too,
 * {@link RewindUnrecoverableError} names the files and the journal stays pending for recovery.
 *
 * The I/O is pipelined (ARCHITECTURE.md, "File rewind"): the journal is recorded, the new contents
 * are written to temp files whose fsyncs run in the thread pool while one full sync makes the
 * journal (and the kept contents) durable; only then is any file renamed into place; the
 * directories are fsynced together after the renames, and the final commit needs no full sync of
 * its own (a power loss that loses it leaves the journal pending, and recovery rolls back).
 */
export async function journaledApply(input: JournaledApplyInput): Promise<{ journal: Journal; files: RewoundFile[] }> {
  const { store, blobs, workspace, steps } = input;
  const durable = input.durable ?? true;
  const keep: BlobInput[] = [];
  // Both hashes were computed from these very bytes (read from disk, or read and verified from the
  // blob store): passed along as verified, so nothing is hashed twice, and a target that serves as
  // the delta base of the content it replaces is not read back from the store.
  for (const step of steps) {
    if (step.expected.content) keep.push({ content: step.expected.content, hash: step.expected.hash!, verified: true, ...(step.target.hash ? { baseHash: step.target.hash } : {}) });
    if (step.target.content) keep.push({ content: step.target.content, hash: step.target.hash!, verified: true });
  }
  // Written and syncing now; indexed before the journal's full sync, which makes the rows durable too.
  let kept: PendingBlobPut | null = keep.length > 0 ? await blobs.beginPutMany(keep) : null;

  const files: RewoundFile[] = steps.map((step) => ({
    path: step.path,
    fromHash: step.expected.hash,
    toHash: step.target.hash,
    fromMode: step.expected.mode,
    toMode: step.target.mode,
    resolution: step.resolution,
  }));
  const items: JournalItem[] = steps.map((step) => ({
    path: step.path,
    expectedHash: step.expected.hash,
    targetHash: step.target.hash,
    mode: step.target.mode,
    expectedMode: step.expected.mode,
    moveFrom: step.moveFrom,
  }));
  // Directories the writes will have to create: journaled, so a rollback removes them again.
  const createdDirectories = missingDirectories(steps);
  // Marked in flight before it exists, so a recovery run by this process never takes it for a crash's.
  const journalId = newId('journal');
  journalsInFlight.add(journalId);
  let journal: Journal;
  try {
    // Recorded at once (a process crash from here on is rolled back by recovery, temp files
    // included); durable after `syncJournal` below, before any file is touched.
    journal = await store.createJournal(
      {
        id: journalId,
        sessionId: input.sessionId,
        kind: FILE_REWIND_JOURNAL,
        root: workspace.primaryRoot.dir,
        items,
        metadata: {
          roots: workspace.roots.map((root) => ({ name: root.name, dir: root.dir, kind: root.kind })),
          pid: process.pid,
          host: hostname(),
          action: input.action,
          kind: input.kind,
          checkpointIds: input.checkpointIds,
          ...(createdDirectories.length > 0 ? { createdDirectories } : {}),
        },
      },
      { durable: false },
    );
  } catch (error) {
    kept?.abort();
    journalsInFlight.delete(journalId);
    throw error;
  }
  const prepared = new Map<PlannedStep, PreparedFileWrite>();
  try {
    let failedPath: string | null = null;
    try {
      // New contents into temp files beside their targets; their fsyncs run in the thread pool
      // while the kept contents are indexed and the journal is synced on this thread.
      for (const step of steps) {
        if (!step.target.exists || step.moveFrom !== null) continue;
        try {
          // No directory is created before the journal is durable: a write into a missing one is
          // prepared later, in turn.
          prepared.set(step, prepareFileWrite(step.resolved, step.target.content!, { ...(step.target.mode === null ? {} : { mode: step.target.mode }), durable, createParents: false }));
        } catch (error) {
          // Not possible yet (its directory is missing, or is a file an earlier step removes …): written in turn below.
          if (!(error instanceof FileWriteFailedError)) throw error;
        }
      }
      const fileSyncs = [...prepared.values()].map((write) => write.sync());
      try {
        const keeping = kept;
        kept = null;
        await keeping?.commit();
        await store.syncJournal(journal.id);
      } finally {
        await Promise.allSettled(fileSyncs);
      }
      await Promise.all(fileSyncs);

      const directories = new Set<string>();
      for (const [index, step] of steps.entries()) {
        failedPath = step.path;
        executeStep(workspace, step, durable, prepared.get(step) ?? null, directories);
        input.hooks?.afterStep?.(step.path, index);
      }
      failedPath = null;
      // Every rename and unlink durable before the commit that says the files are at their targets.
      if (durable) await fsyncDirectories(directories);
      const extra = input.onCommit?.() ?? {};
      const data: FileRewindEntryData = {
        rewindId: journal.id,
        action: input.action,
        kind: input.kind,
        undoes: input.undoes,
        checkpointIds: input.checkpointIds,
        files: files.map((file) => ({ ...file })),
      };
      const committed = await store.setJournalState(
        journal.id,
        'committed',
        { entries: [{ sessionId: input.sessionId, entry: { type: FILE_REWIND_ENTRY, data } }, ...(extra.entries ?? [])], headMoves: extra.headMoves ?? [] },
        { durable: false },
      );
      return { journal: committed, files };
    } catch (error) {
      kept?.abort();
      for (const write of prepared.values()) write.abort();
      input.hooks?.beforeCompensation?.();
      const unrestored = await restoreJournalItems(journal, workspace, blobs, durable);
      await pinPreserved(store, journal, unrestored.preserved ?? []);
      if (unrestored.length > 0) throw new RewindUnrecoverableError({ journalId: journal.id, files: unrestored, cause: error });
      await store.setJournalState(journal.id, 'rolled_back', {}, { durable: false });
      if (error instanceof RewindConflictError) throw error;
      // A store refusal outside the file steps (the journal's sync, the commit's HEAD_MOVED …) is raised as is.
      if (WaypointError.is(error) && failedPath === null && !(error instanceof FileWriteFailedError)) throw error;
      const path = failedPath ?? (error instanceof FileWriteFailedError ? error.path : null);
      throw new RewindApplyFailedError({ journalId: journal.id, path, reason: error instanceof Error ? error.message : String(error), cause: error });
    }
  } finally {
    for (const write of prepared.values()) write.abort();
    journalsInFlight.delete(journal.id);
  }
}

function same(state: ContentState, hash: string | null): boolean {
  return state.exists === (hash !== null) && state.hash === hash;
}

/**
 * One step, re-checked against its expected content just before. A prepared write is renamed into
 * place and a delete unlinks, both leaving their directory in `directories` to be fsynced with the
 * others; a move back (rare) syncs as it goes.
 */
function executeStep(workspace: Workspace, step: PlannedStep, durable: boolean, prepared: PreparedFileWrite | null, directories: Set<string>): void {
  const disk = readDisk(workspace, step.path);
  if (!disk.ok) throw new RewindConflictError({ files: [{ path: step.path, status: 'file_read_failed', reason: disk.reason }] });
  const current = disk.state;
  const modeDone = !step.target.exists || step.target.mode === null || current.mode === step.target.mode;
  if (same(current, step.target.hash) && modeDone) return; // already there (moved back by an earlier step)
  if (!same(current, step.expected.hash)) {
    throw new RewindConflictError({
      files: [{ path: step.path, status: 'external_modified', reason: `${describeMismatch(current.hash, step.expected.hash)} while the rewind was being applied` }],
    });
  }
  if (step.moveFrom !== null) {
    const source = readDisk(workspace, step.moveFrom);
    if (source.ok && same(source.state, step.target.hash)) {
      try {
        movePath(source.resolved, step.resolved, { durable });
        if (modeOf(step) !== null && source.state.mode !== modeOf(step)) writeFileAtomic(step.resolved, step.target.content!, { mode: modeOf(step)!, durable });
        return;
      } catch {
        // Seed 002: when moving back fails, write the source content and let the target's own step delete it.
      }
    }
  }
  if (!step.target.exists) {
    deletePath(step.resolved, { durable: false });
    directories.add(dirname(step.resolved.entryPath));
  } else if (prepared !== null) {
    prepared.commit({ syncDirectory: false });
    directories.add(prepared.directory);
  } else {
    writeFileAtomic(step.resolved, step.target.content!, { ...(step.target.mode === null ? {} : { mode: step.target.mode }), durable });
  }
}

function modeOf(step: PlannedStep): number | null {
  return step.target.mode;
}

/** What {@link restoreJournalItems} could not put back, with what it did put back and what it kept. */
export type RestoreOutcome = UnrestoredFile[] & {
  restored?: string[];
  /** Contents found at a path that were neither its expected nor its target content, stored before being overwritten. */
  preserved?: PreservedContent[];
};

/** A content a rollback overwrote that no record named: stored in the blob store first (invariant 2). */
export interface PreservedContent {
  path: string;
  hash: string;
}

/**
 * Puts every path of a journal back to its expected (pre-rewind) content, newest item first, when
 * it differs. Paths the journal does not name are never touched. A content that is neither the
 * expected nor the target one (changed by someone after the apply, e.g. after a power loss lost the
 * journal's final commit) is stored in the blob store before it is overwritten, and reported in
 * `preserved`. Returns the paths that could not be put back.
 */
export async function restoreJournalItems(
  journal: Journal,
  workspace: Workspace,
  blobs: BlobStore,
  durable = true,
): Promise<RestoreOutcome> {
  const unrestored: RestoreOutcome = [];
  const restored: string[] = [];
  const preserved: PreservedContent[] = [];
  unrestored.restored = restored;
  unrestored.preserved = preserved;
  for (const original of [...journal.items].reverse()) {
    const item: JournalItem = { ...original, path: asWorkspaceKey(workspace, original.path) };
    try {
      const disk = readDisk(workspace, item.path);
      if (!disk.ok) {
        if (disk.resolved === null) throw new Error(disk.reason);
        // A directory or link appeared at the path: remove it only when the journal expects nothing there.
        if (item.expectedHash !== null) throw new Error(disk.reason);
        deletePath(disk.resolved, { durable });
        restored.push(item.path);
        continue;
      }
      removeTempFiles(workspace, item.path, disk.resolved.realPath, durable);
      if (same(disk.state, item.expectedHash)) continue;
      if (disk.state.exists && !same(disk.state, item.targetHash)) {
        preserved.push({ path: item.path, hash: await blobs.put(disk.state.content!) });
      }
      restored.push(item.path);
      if (item.expectedHash === null) {
        deletePath(disk.resolved, { durable });
      } else {
        const content = await blobs.get(item.expectedHash);
        const mode = typeof item.expectedMode === 'number' ? item.expectedMode : undefined;
        writeFileAtomic(disk.resolved, content, { ...(mode === undefined ? {} : { mode }), durable });
      }
    } catch (error) {
      unrestored.push({ path: item.path, expectedHash: item.expectedHash, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  removeCreatedDirectories(journal, workspace, durable);
  return unrestored;
}

/**
 * The directories above the steps' targets that do not exist yet (deepest first), as workspace
 * keys of their real paths: the apply creates them, a rollback removes them.
 */
function missingDirectories(steps: readonly PlannedStep[]): string[] {
  const missing = new Map<string, string>();
  for (const step of steps) {
    // A file that exists now has its directory: its write creates none (and if the file is gone
    // by then, its re-check refuses the step before anything is written).
    if (!step.target.exists || step.expected.exists) continue;
    const root = step.resolved.root;
    for (let directory = dirname(step.resolved.realPath); directory !== root.realDir && directory !== dirname(directory); directory = dirname(directory)) {
      if (missing.has(directory) || exists(directory)) break;
      missing.set(directory, `${root.name}:${relative(root.realDir, directory).split(sep).join('/')}`);
    }
  }
  return [...missing.entries()].sort(([a], [b]) => b.length - a.length).map(([, key]) => key);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the directories a journal's apply created (metadata `createdDirectories`, deepest first)
 * when they are empty again; one that holds anything now (someone else's file) is left alone.
 */
function removeCreatedDirectories(journal: Journal, workspace: Workspace, durable: boolean): void {
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
 * Keeps preserved contents out of GC's reach: pinned by the journal's session (released when the
 * session is deleted), or by the journal itself when it has no session.
 */
export async function pinPreserved(store: Store, journal: Journal, preserved: readonly PreservedContent[]): Promise<void> {
  if (preserved.length === 0) return;
  const owner = journal.sessionId ? `session:${journal.sessionId}:rewind-preserved:${journal.id}` : `journal:${journal.id}:preserved`;
  await store.setBlobPins(owner, preserved.map((entry) => entry.hash));
}

/**
 * Removes the temp files an atomic write to `path` leaves when its process dies between creating
 * and renaming them (`.<name>.<12 hex>.wp-tmp`, see `writeFileAtomic`), so recovery leaves no stray
 * files. Each goes through the workspace, so nothing outside the roots is touched.
 */
function removeTempFiles(workspace: Workspace, path: string, realPath: string, durable: boolean): void {
  const name = basename(realPath).slice(0, 180);
  const pattern = new RegExp(`^\\.${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.[0-9a-f]{12}\\.wp-tmp$`);
  let siblings: string[];
  try {
    siblings = readdirSync(dirname(realPath));
  } catch {
    return; // the directory is gone: no temp files either
  }
  const prefix = path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : `${path.slice(0, path.indexOf(':') + 1)}`;
  for (const sibling of siblings) if (pattern.test(sibling)) deletePath(workspace.resolveKey(`${prefix}${sibling}`), { durable });
}

/** Journal paths are workspace keys (`root:relative`); a bare relative path is taken in the primary root. */
function asWorkspaceKey(workspace: Workspace, path: string): string {
  return workspace.roots.some((root) => path.startsWith(`${root.name}:`)) ? path : `${workspace.primaryRoot.name}:${path}`;
}
