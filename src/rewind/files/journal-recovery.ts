import { hostname } from 'node:os';
import { BlobStore } from '../../blobs/index.js';
import type { Journal } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import { Workspace, type RootKind } from '../../workspace/index.js';
import type { UnrestoredFile } from './errors/index.js';
import { journalsInFlight, pinPreserved, restoreJournalItems, type PreservedContent } from './journaled-apply.js';

/** Builds the workspace a journal's paths belong to. */
export type ResolveJournalWorkspace = (journal: Journal) => Workspace | Promise<Workspace>;

export interface RecoveryReport {
  /**
   * Journals rolled back, with the paths that had to be put back, and contents found there that
   * were neither the journal's expected nor its target ones, stored (and pinned) before being overwritten.
   */
  recovered: Array<{ journalId: string; restored: string[]; preserved: PreservedContent[] }>;
  /** Journals left pending because a live process may still be applying them. */
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
 * pre-write content when it differs, then the journal is marked `rolled_back`. Paths a journal does
 * not name are never touched. Idempotent: a crash during recovery is repaired by running it again.
 * Call it whenever a store is opened, before any rewind runs (DESIGN.md invariant 3).
 *
 * A journal written by a process that is still running (same host, live pid) is skipped, so opening
 * a store beside a running agent never undoes its in-flight rewind.
 *
 * @example
 * const store = await SqliteStore.open({ path });
 * const report = await recoverJournals(store);
 * if (report.failed.length) console.error(report.failed);
 */
export async function recoverJournals(store: Store, resolveWorkspace: ResolveJournalWorkspace = journalWorkspace, options: RecoverOptions = {}): Promise<RecoveryReport> {
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
      report.failed.push({ journalId: journal.id, files: [{ path: journal.root, expectedHash: null, reason: `its workspace cannot be opened: ${(error as Error).message}` }] });
      continue;
    }
    const unrestored = await restoreJournalItems(journal, workspace, blobs);
    await pinPreserved(store, journal, unrestored.preserved ?? []);
    if (unrestored.length > 0) {
      report.failed.push({ journalId: journal.id, files: [...unrestored] });
      continue;
    }
    await store.setJournalState(journal.id, 'rolled_back');
    report.recovered.push({ journalId: journal.id, restored: unrestored.restored ?? [], preserved: unrestored.preserved ?? [] });
  }
  return report;
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

function liveOwner(journal: Journal): string | null {
  const { pid, host } = journal.metadata;
  if (typeof pid !== 'number') return null;
  if (typeof host === 'string' && host !== hostname()) return `written on another host (${host}); it may still be applying`;
  if (pid === process.pid) return journalsInFlight.has(journal.id) ? 'being applied by this process' : null;
  try {
    process.kill(pid, 0);
    return `process ${pid}, which wrote it, is still running`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? `process ${pid}, which wrote it, is still running` : null;
  }
}
