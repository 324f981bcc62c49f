import { BlobStore } from '../../blobs/index.js';
import type { Journal } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import { Workspace, type RootKind } from '../../workspace/index.js';
import { RewindUnrecoverableError, type UnrestoredFile } from './errors/index.js';
import { pinPreserved, restoreJournalItems, type PreservedContent } from './journal-restore.js';
import { preservedEntry } from './preserved-contents.js';
import { journalsInFlight, liveWriter, lockWorkspace, pathsOverlap, type WorkspaceLock } from './workspace-lock.js';

/** Builds the workspace a journal's paths belong to. */
export type ResolveJournalWorkspace = (journal: Journal) => Workspace | Promise<Workspace>;

export interface RecoveryReport {
  /**
   * Journals rolled back, with the paths that had to be put back, the paths left as they were
   * because someone saved them after the apply (their content is kept, not the one before), and
   * contents found set aside beside a path that could not go back, stored (and pinned).
   */
  recovered: Array<{ journalId: string; restored: string[]; left: string[]; preserved: PreservedContent[] }>;
  /** Journals left pending because a live process may still be applying them, or holds their workspace. */
  skipped: Array<{ journalId: string; reason: string }>;
  /** Journals whose files could not all be put back; they stay pending for the next attempt. */
  failed: Array<{ journalId: string; files: UnrestoredFile[] }>;
}

export interface RecoverOptions {
  blobs?: BlobStore;
  /** Also roll back journals whose writer looks alive (another host, a live pid). Default false. */
  includeLive?: boolean;
}

/**
 * Rolls back every unfinished (pending) journal: each path it names is put back to its expected,
 * pre-write content when it still holds what the journal's apply wrote; a path someone saved
 * since keeps their content. Then the journal is marked `rolled_back`. Paths a journal does not
 * name are never touched. Idempotent: a crash during recovery is repaired by running it again.
 * Call it whenever a store is opened, before any rewind runs, so every file is wholly before or wholly after.
 *
 * A journal written by a process that is still running (same host, live pid) is skipped, so opening
 * a store beside a running agent never undoes its in-flight rewind; so is one whose workspace
 * another process has locked right now (that process recovers it itself under the lock).
 *
 * @example
 * const store = await SqliteStore.open({ path });
 * const report = await recoverJournals(store);
 * if (report.failed.length) console.error(report.failed);
 */
export async function recoverJournals(
  store: Store,
  resolveWorkspace: ResolveJournalWorkspace = journalWorkspace,
  options: RecoverOptions = {},
): Promise<RecoveryReport> {
  const blobs = options.blobs ?? new BlobStore(store);
  const report: RecoveryReport = { recovered: [], skipped: [], failed: [] };
  for (const journal of await store.listJournals({ state: 'pending' })) {
    const owner = liveOwner(journal);
    if (owner && !options.includeLive) {
      report.skipped.push({ journalId: journal.id, reason: owner });
      continue;
    }
    let workspace: Workspace;
    try {
      workspace = await resolveWorkspace(journal);
    } catch (error) {
      report.failed.push({
        journalId: journal.id,
        files: [{ path: journal.root, expectedHash: null, reason: `its workspace cannot be opened: ${(error as Error).message}` }],
      });
      continue;
    }
    const lock = await lockWorkspace(store, workspace, { purpose: `recovery of journal ${journal.id}`, waitMs: 0 });
    if (lock === null) {
      report.skipped.push({ journalId: journal.id, reason: 'another process is changing files of its workspace now (it recovers the journal itself)' });
      continue;
    }
    try {
      // Under the lock, the journal may have been recovered by the process that held it before.
      if ((await store.getJournal(journal.id)).state !== 'pending') continue;
      await recoverOne(store, blobs, journal, workspace, report);
    } finally {
      await lock.release();
    }
  }
  return report;
}

/**
 * Rolls back the pending journals of dead writers whose workspace overlaps `lock`'s directories.
 * A rewind runs it right after taking the workspace lock, before it plans: a crash's half-applied
 * files are put back first, so nothing is planned on top of them and later undone.
 */
export async function recoverJournalsUnder(store: Store, blobs: BlobStore, lock: WorkspaceLock): Promise<RecoveryReport> {
  const report: RecoveryReport = { recovered: [], skipped: [], failed: [] };
  for (const journal of await store.listJournals({ state: 'pending' })) {
    if (liveOwner(journal)) continue;
    let workspace: Workspace;
    try {
      workspace = journalWorkspace(journal);
    } catch {
      continue;
    }
    if (
      !pathsOverlap(
        workspace.roots.map((root) => root.realDir),
        lock.paths,
      )
    )
      continue;
    await recoverOne(store, blobs, journal, workspace, report);
  }
  if (report.failed.length > 0) {
    const [first] = report.failed;
    throw new RewindUnrecoverableError({ journalId: first!.journalId, files: first!.files });
  }
  return report;
}

async function recoverOne(store: Store, blobs: BlobStore, journal: Journal, workspace: Workspace, report: RecoveryReport): Promise<void> {
  const unrestored = await restoreJournalItems(journal, workspace, blobs);
  await pinPreserved(store, journal, unrestored);
  if (unrestored.length > 0) {
    report.failed.push({ journalId: journal.id, files: [...unrestored] });
    return;
  }
  const kept = preservedEntry(journal, unrestored.preserved ?? []);
  await store.setJournalState(journal.id, 'rolled_back', kept ? { entries: [kept] } : {});
  report.recovered.push({ journalId: journal.id, restored: unrestored.restored ?? [], left: unrestored.left ?? [], preserved: unrestored.preserved ?? [] });
}

/**
 * The workspace recorded in a journal's metadata (`roots: [{ name, dir, kind }]`), or a single
 * `workspace` root at `journal.root` for journals written without it.
 */
export function journalWorkspace(journal: Journal): Workspace {
  const roots = journal.metadata.roots;
  if (Array.isArray(roots) && roots.length > 0) {
    return new Workspace({
      roots: roots.map((root) => {
        const spec = root as { name: string; dir: string; kind: RootKind };
        return { name: spec.name, dir: spec.dir, kind: spec.kind };
      }),
    });
  }
  return new Workspace({ roots: [{ name: 'workspace', dir: journal.root, kind: 'workspace' }] });
}

/** Why a journal's writer may still be running (null: it is gone). */
export function liveOwner(journal: Journal): string | null {
  return liveWriter(journal.metadata.pid, journal.metadata.host, () => journalsInFlight.has(journal.id));
}
