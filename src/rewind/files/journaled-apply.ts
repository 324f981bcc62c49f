import type { BlobInput, BlobStore, PendingBlobPut } from '../../blobs/index.js';
import { timingEvent, timingMark } from './apply-timing.js';
import { newId, WaypointError, type Journal, type JournalItem, hostId } from '../../model/index.js';
import type { JournalCommitWrites, Store } from '../../store/index.js';
import { FileWriteFailedError, fsyncDirectories, type DisplacedFile, type KeptFiles, type PreparedFileWrite, type Workspace } from '../../workspace/index.js';
import { missingDirectories } from './apply-directories.js';
import { executeStep, prepareStep, removeTaken, type TakenFile } from './apply-step.js';
import type { EarlyWrites } from './early-writes.js';
import { CommitOutcomeUnknownError, commitJournal, whileUnavailable } from './commit-outcome.js';
import { RewindApplyFailedError, RewindConflictError, RewindUnrecoverableError } from './errors/index.js';
import type { FileRewindEntryData, FileRewindKind, RewoundFile } from './file-rewind-types.js';
import { recoverJournalsUnder } from './journal-recovery.js';
import {
  emptyOutcome,
  pinPreserved,
  preserveParked,
  recreateReplacedDirectories,
  removeCreatedDirectories,
  restorePath,
  type PreservedContent,
  type RestoreOutcome,
} from './journal-restore.js';
import { preservedEntry } from './preserved-contents.js';
import { RewindLedger } from './rewind-ledger.js';
import { inReadiness } from './readiness-order.js';
import { orderSteps, type PlannedStep } from './rewind-plan.js';
import { readUnstored, stampInstalled, type InstalledFile } from './stamped-files.js';
import { journalsInFlight, lockWorkspace, type WorkspaceLock } from './workspace-lock.js';

export { journalsInFlight } from './workspace-lock.js';
export { restoreJournalItems, pinPreserved, type RestoreOutcome, type PreservedContent } from './journal-restore.js';

/** The journal kind file rewinds write. */
export const FILE_REWIND_JOURNAL = 'file-rewind';
/** The entry type that records an applied file rewind. */
export const FILE_REWIND_ENTRY = 'file-rewind';

/** Test hooks: real file-system changes made between steps, to provoke real failures. */
export interface ApplyHooks {
  /**
   * Runs after each step (`index`: how many ran before it). With it, the steps run in the plan's
   * order, none taken early because its temp file was durable first, so a test can act after a
   * named step.
   */
  afterStep?: (path: string, index: number) => void;
  /** Runs between a failure and compensation. */
  beforeCompensation?: () => void;
  /** Runs before compensation puts one path back; throwing stands for a write that fails. */
  beforeRestore?: (path: string) => void;
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
  /**
   * The workspace lock the caller holds since before it planned the steps. Without one, the apply
   * takes it itself and re-validates the plan under it (a change undone meanwhile is a conflict).
   */
  lock?: WorkspaceLock | undefined;
  /** Temp files begun while the steps were planned: a step takes the one made for it (see `EarlyWrites`). */
  early?: EarlyWrites | undefined;
  /** Files earlier rewinds replaced, kept for reuse: a step links one that holds its content instead of writing a temp file, and files this apply replaces may be kept in turn. */
  kept?: KeptFiles | undefined;
  /** For kind `preserved`: the kept-aside content this apply puts back (recorded in its entry). */
  restores?: { rewindId: string; path: string } | undefined;
}

/**
 * Applies planned file writes all-or-nothing: every content that will be overwritten
 * goes into the blob store first (nothing lost), a journal naming each path's expected and target hash is
 * made durable, files are changed one by one — each compared against its expected content and
 * replaced in one step (`replaceIf`), so a person's save at that instant is never overwritten —
 * then the journal is committed together with the `file-rewind` entry and the caller's `onCommit`
 * writes. On any failure, the paths this apply changed and that still hold what it wrote are put
 * back (a path someone saved since keeps their content), the journal is marked rolled back, and a
 * typed error is raised; if putting back fails, {@link RewindUnrecoverableError} names the files and
 * the journal stays pending for recovery. The whole apply runs under the workspace lock.
 *
 * The I/O is pipelined (ARCHITECTURE.md, "File rewind"): the journal is recorded, the new contents
 * are written to temp files (`beginTempWrite`), then fsynced in the thread pool all at once, while
 * the contents to keep are written and one full sync makes the journal (and them) durable on this
 * thread; only then is
 * any file replaced, each as soon as its own temp file is durable (one durable early goes before
 * one still syncing, see `inReadiness`); the directories are fsynced together after the
 * replacements (while the replaced files are removed), and the final commit needs no full sync of
 * its own (a power loss that loses it leaves the journal pending, and recovery rolls back). A
 * direct rewind begins its temp files while it is still planned (`early`, see `EarlyWrites`): a
 * step takes the one begun for exactly its path, content and mode, and makes its own otherwise.
 */
export async function journaledApply(input: JournaledApplyInput): Promise<{ journal: Journal; files: RewoundFile[] }> {
  if (input.lock) return applyLocked(input);
  const lock = await lockWorkspace(input.store, input.workspace, { purpose: `${input.action} of session ${input.sessionId}` });
  try {
    await recoverJournalsUnder(input.store, input.blobs, lock);
    await revalidate(input);
    return await applyLocked(input);
  } finally {
    await lock.release();
  }
}

/**
 * A plan made before the lock was taken still holds: none of its changes was undone (or, for a
 * redo, its rewind redone) by another operation since. Files are re-checked step by step anyway.
 */
async function revalidate(input: JournaledApplyInput): Promise<void> {
  const ledger = await RewindLedger.load(input.store, input.sessionId);
  const stale =
    input.action === 'rewind'
      ? input.checkpointIds.some((id) => ledger.rewoundCheckpoints().has(id))
      : input.undoes !== null && ledger.find(input.undoes)?.redone === true;
  if (stale) {
    throw new RewindConflictError({
      files: [
        {
          path: '(checkpoints)',
          status: 'external_modified',
          reason: 'another rewind or redo of this session changed the same changes while this one was being prepared',
        },
      ],
      hint: 'Preview again to see the current state.',
    });
  }
}

async function applyLocked(input: JournaledApplyInput): Promise<{ journal: Journal; files: RewoundFile[] }> {
  const { store, blobs, workspace } = input;
  // Run (and journaled) in an order where a file in the way of a directory goes first; reported in the plan's.
  const steps = orderSteps(input.steps);
  const durable = input.durable ?? true;
  const keep: BlobInput[] = [];
  /** The contents to keep, written and syncing (begun once the temp files are): indexed before the journal's full sync. */
  let kept: PendingBlobPut | null = null;

  const files: RewoundFile[] = input.steps.map((step) => ({
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
  // Directories that give way to a file: journaled, so a rollback creates them again.
  const replacedDirectories = steps.flatMap((step) => step.replacesDirectories ?? []);
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
          host: hostId(),
          action: input.action,
          kind: input.kind,
          checkpointIds: input.checkpointIds,
          ...(createdDirectories.length > 0 ? { createdDirectories } : {}),
          ...(replacedDirectories.length > 0 ? { replacedDirectories } : {}),
        },
      },
      { durable: false },
    );
  } catch (error) {
    journalsInFlight.delete(journalId);
    throw error;
  }
  timingMark('createJournal');
  const prepared = new Map<PlannedStep, PreparedFileWrite>();
  /** Paths this apply has begun to change: the only ones compensation may put back. */
  const touched = new Set<string>();
  /** Files taken off a path that someone saved again before they could go back: stored below. */
  const displaced: Array<DisplacedFile & { path: string }> = [];
  /** Contents taken off a path that someone wrote again before the new content went in. */
  const raced: PreservedContent[] = [];
  /** Replaced files still under their hidden names (see `replaceIf`'s `keepTaken`), to remove before the commit. */
  const taken: TakenFile[] = [];
  /** The new files this apply put in place, with what they hold: stamped once it commits (see `stampInstalled`). */
  const installed: InstalledFile[] = [];
  /** The temp-file writes in flight: all settled before any is given up. */
  let preparing: Promise<void>[] = [];
  try {
    let failedPath: string | null = null;
    try {
      // Checked once the journal names every content (a root no GC sweeps): a file known by its
      // stamp whose bytes the store no longer holds is read now.
      await readUnstored(steps, blobs, workspace);
      // Both hashes were computed from these very bytes (read from disk, or read and verified from the
      // blob store): passed along as verified, so nothing is hashed twice, and a target that serves as
      // the delta base of the content it replaces is not read back from the store.
      for (const step of steps) {
        if (step.expected.content)
          keep.push({ content: step.expected.content, hash: step.expected.hash!, verified: true, ...(step.target.hash ? { baseHash: step.target.hash } : {}) });
        if (step.target.content) keep.push({ content: step.target.content, hash: step.target.hash!, verified: true });
      }
      // New contents into temp files beside their targets, all written first, then fsynced in the
      // thread pool all at once, while the kept contents are indexed and the journal is synced here.
      const ready = new Map<PlannedStep, Promise<void>>();
      for (const step of steps) {
        // A move back renames the file itself; its content is written only if that fails.
        // A file that replaces a directory is prepared once the directory is gone (its mode and owner are not the file's).
        if (!step.target.exists || step.moveFrom !== null || step.replacesDirectories) continue;
        const write = prepareStep(step, durable, prepared, input.early?.take(step), input.kept);
        // Its failure is raised where the step awaits it; until then it must not count as unhandled.
        write.catch(() => undefined);
        ready.set(step, write);
      }
      preparing = [...ready.values()];
      timingMark('prepare-start');
      // Written and syncing while the temp files are; indexed before the journal's full sync, which
      // makes the rows durable too: all of it before any file is touched.
      kept = keep.length > 0 ? await blobs.beginPutMany(keep) : null;
      timingMark(`beginPutMany(${keep.length})`);
      const keeping = kept;
      kept = null;
      await keeping?.commit();
      timingMark('kept-commit');
      await store.syncJournal(journal.id);
      timingMark('syncJournal');

      const directories = new Set<string>();
      let index = 0;
      // A hook that acts after a given step sees the steps in the plan's order (see `ApplyHooks`).
      const goesEarly = input.hooks?.afterStep ? () => false : (step: PlannedStep) => prepared.has(step);
      for await (const step of inReadiness(steps, ready, goesEarly)) {
        failedPath = step.path;
        // Each file's temp file is durable before it goes in; the later ones sync meanwhile, and
        // one already durable goes before one still syncing.
        await ready.get(step);
        const write = executeStep(
          step,
          durable,
          prepared.get(step) ?? null,
          directories,
          touched,
          displaced,
          raced,
          step.moveFrom === null ? undefined : steps.find((other) => other.path === step.moveFrom),
          taken,
        );
        if (write?.written && step.target.hash !== null) installed.push({ path: step.resolved.entryPath, hash: step.target.hash, write: write.written });
        input.hooks?.afterStep?.(step.path, index++);
      }
      failedPath = null;
      timingMark(`steps(${steps.length})`);
      // The replaced files (their contents kept in the store) are removed together in the thread
      // pool rather than one by one between the steps, while the directories are fsynced: every
      // replacement durable before the commit that says the files are at their targets. A kill
      // before that leaves them to recovery.
      const removing = removeTaken(taken, input.kept).finally(() => timingEvent('parked-removed'));
      const syncing = durable ? fsyncDirectories(directories).finally(() => timingEvent('dirs-synced')) : undefined;
      // While the thread pool removes and fsyncs: which written files can be known later by their stat.
      const stamps = stampInstalled(installed, durable);
      const [removed, synced] = await Promise.allSettled([removing, syncing]);
      if (removed.status === 'rejected') throw removed.reason;
      if (synced.status === 'rejected') throw synced.reason;
      timingMark(`unlink+dirsync(${directories.size})`);
      // A move back that found a save it could not put back, and then wrote the path anyway: that save is kept.
      const aside = emptyOutcome();
      for (const file of displaced.splice(0)) await preserveParked(blobs, file.path, file, aside);
      await pinPreserved(store, journal, aside);
      const keptAside = preservedEntry(journal, aside.preserved ?? []);
      const extra = input.onCommit?.() ?? {};
      timingMark('preserved');
      const data: FileRewindEntryData = {
        rewindId: journal.id,
        action: input.action,
        kind: input.kind,
        undoes: input.undoes,
        checkpointIds: input.checkpointIds,
        files: files.map((file) => ({ ...file })),
        ...(input.restores ? { restores: input.restores } : {}),
      };
      const committed = await commitJournal(store, journal.id, {
        entries: [{ sessionId: input.sessionId, entry: { type: FILE_REWIND_ENTRY, data } }, ...(keptAside ? [keptAside] : []), ...(extra.entries ?? [])],
        headMoves: extra.headMoves ?? [],
      });
      timingMark('commit');
      stamps();
      return { journal: committed, files };
    } catch (error) {
      // Whether the commit landed is unknown: the files stay at their targets for recovery to settle.
      if (error instanceof CommitOutcomeUnknownError) throw error;
      kept?.abort();
      await Promise.allSettled(preparing);
      for (const write of prepared.values()) write.abort();
      await removeTaken(taken).catch(() => undefined);
      input.hooks?.beforeCompensation?.();
      const unrestored = await compensate(steps, touched, blobs, durable, input.hooks, createdDirectories);
      for (const file of displaced) await preserveParked(blobs, file.path, file, unrestored);
      unrestored.preserved!.push(...raced);
      removeCreatedDirectories(journal, workspace, durable);
      recreateReplacedDirectories(journal, workspace);
      await pinPreserved(store, journal, unrestored);
      const preserved = unrestored.preserved ?? [];
      const keptAside = preservedEntry(journal, preserved);
      if (unrestored.length > 0) {
        // The journal stays pending; the saves kept aside are on record all the same.
        if (keptAside) await store.appendEntry(keptAside.sessionId, keptAside.entry).catch(() => undefined);
        throw new RewindUnrecoverableError({ journalId: journal.id, files: unrestored, cause: error });
      }
      // Still pending if the store stays away: the next open's recovery finds the files back and records it.
      await whileUnavailable(() => store.setJournalState(journal.id, 'rolled_back', keptAside ? { entries: [keptAside] } : {}, { durable: false }));
      if (error instanceof RewindConflictError)
        throw preserved.length === 0 ? error : new RewindConflictError({ files: [...error.files], preserved, cause: error.cause });
      // A store refusal outside the file steps (the journal's sync, the commit's HEAD_MOVED …) is raised as is.
      if (WaypointError.is(error) && failedPath === null && !(error instanceof FileWriteFailedError)) throw error;
      const path = failedPath ?? (error instanceof FileWriteFailedError ? error.path : null);
      throw new RewindApplyFailedError({ journalId: journal.id, path, reason: error instanceof Error ? error.message : String(error), cause: error });
    }
  } finally {
    await Promise.allSettled(preparing);
    for (const write of prepared.values()) write.abort();
    journalsInFlight.delete(journal.id);
  }
}

/**
 * Puts back, newest first, the paths this apply began to change, each only while it still holds
 * what the apply wrote (`restorePath`): steps that never ran, and files someone saved since, are
 * left as they are.
 */
async function compensate(
  steps: readonly PlannedStep[],
  touched: ReadonlySet<string>,
  blobs: BlobStore,
  durable: boolean,
  hooks: ApplyHooks | undefined,
  createdDirectories: readonly string[],
): Promise<RestoreOutcome> {
  const outcome = emptyOutcome();
  for (const step of [...steps].reverse()) {
    if (!touched.has(step.path)) continue;
    try {
      hooks?.beforeRestore?.(step.path);
      await restorePath(
        {
          path: step.path,
          resolved: step.resolved,
          expectedHash: step.expected.hash,
          expectedMode: step.expected.mode,
          targetHash: step.target.hash,
          targetMode: step.target.mode,
          expectedContent: step.expected.content,
          createdDirectories,
        },
        blobs,
        durable,
        outcome,
      );
    } catch (error) {
      outcome.push({ path: step.path, expectedHash: step.expected.hash, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}
