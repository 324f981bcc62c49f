import type { BlobStore } from '../../blobs/index.js';
import { ConflictError, type Journal } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import type { Workspace } from '../../workspace/index.js';
import { journalWorkspace, liveOwner } from './journal-recovery.js';
import { pinPreserved, restoreJournalItems } from './journal-restore.js';
import { preservedEntry } from './preserved-contents.js';
import { lockWorkspace } from './workspace-lock.js';

/** The entry type that records a pending journal given up by {@link resolvePendingJournal}. */
export const JOURNAL_RESOLVED_ENTRY = 'rewind-resolved';

/** What {@link resolvePendingJournal} did: the paths it put back, and those it left as they are (with why). */
export interface JournalResolution {
  journalId: string;
  restored: string[];
  left: Array<{ path: string; expectedHash: string | null; reason: string }>;
}

/**
 * The way out of `REWIND_UNRECOVERABLE`: gives up a pending journal that recovery cannot finish
 * (the content a path held before the apply is gone from the store, or a path cannot be written).
 * Under the workspace lock, every path that can be put back is put back (by recovery's rule: only
 * paths that still hold what the apply wrote); the others are left as they are, and what they hold
 * stays in the store (the journal names it). The journal is then marked rolled back with a
 * `rewind-resolved` entry listing what was left, so rewinds run again. Refuses
 * (`JOURNAL_NOT_PENDING`, `JOURNAL_IN_FLIGHT`) a journal that is finished or whose process runs.
 *
 * @example
 * const resolution = await resolvePendingJournal({ store, blobs, journalId: error.details.journalId });
 * for (const file of resolution.left) console.warn(`${file.path} left as it is: ${file.reason}`);
 */
export async function resolvePendingJournal(input: { store: Store; blobs: BlobStore; journalId: string; workspace?: Workspace }): Promise<JournalResolution> {
  const { store, blobs } = input;
  const first = await store.getJournal(input.journalId);
  checkResolvable(first);
  const workspace = input.workspace ?? journalWorkspace(first);
  const lock = await lockWorkspace(store, workspace, { purpose: `resolution of journal ${first.id}` });
  try {
    // Under the lock: recovery in another process may have finished it meanwhile.
    const journal = await store.getJournal(first.id);
    checkResolvable(journal);
    const outcome = await restoreJournalItems(journal, workspace, blobs);
    await pinPreserved(store, journal, outcome);
    const left = [
      ...outcome.map((file) => ({ path: file.path, expectedHash: file.expectedHash, reason: file.reason })),
      ...(outcome.left ?? []).map((path) => ({ path, expectedHash: null, reason: 'someone saved it since the apply: their content stays' })),
    ];
    const entries = [];
    if (journal.sessionId !== null)
      entries.push({
        sessionId: journal.sessionId,
        entry: { type: JOURNAL_RESOLVED_ENTRY, data: { rewindId: journal.id, restored: outcome.restored ?? [], left } },
      });
    const kept = preservedEntry(journal, outcome.preserved ?? []);
    if (kept) entries.push(kept);
    await store.setJournalState(journal.id, 'rolled_back', { entries });
    return { journalId: journal.id, restored: outcome.restored ?? [], left };
  } finally {
    await lock.release();
  }
}

function checkResolvable(journal: Journal): void {
  if (journal.state !== 'pending')
    throw new ConflictError({
      code: 'JOURNAL_NOT_PENDING',
      message: `Journal ${journal.id} is ${journal.state}, not pending: there is nothing to resolve.`,
      details: { journalId: journal.id, state: journal.state },
    });
  const owner = liveOwner(journal);
  if (owner)
    throw new ConflictError({
      code: 'JOURNAL_IN_FLIGHT',
      message: `Journal ${journal.id} may still be applied: ${owner}. Resolve it once that process has ended.`,
      details: { journalId: journal.id },
    });
}
