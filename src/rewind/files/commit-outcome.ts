import { StoreError, WaypointError, type Journal } from '../../model/index.js';
import type { JournalCommitWrites, Store } from '../../store/index.js';

/** How long to keep asking a store that went away whether a commit landed (a server restart takes seconds). */
const ASK_FOR_MS = 30_000;

/**
 * Commits a journal (`setJournalState(…, 'committed', writes)`). When the store connection breaks
 * while the commit is in flight (`STORE_UNAVAILABLE` with `details.commitInFlight`) it may or may
 * not have landed — a server can commit and lose the connection before it answers — so the journal is read back, asking again until the
 * store answers: committed, the commit stands and is returned; still pending, the original error is
 * thrown and the caller rolls the files back. When the store does not answer in time,
 * {@link CommitOutcomeUnknownError} is thrown: the caller must leave the files as they are, so
 * the next open's recovery (which reads the journal's real state) settles them either way.
 */
export async function commitJournal(store: Store, journalId: string, writes: JournalCommitWrites): Promise<Journal> {
  try {
    return await store.setJournalState(journalId, 'committed', writes, { durable: false });
  } catch (error) {
    // Only a connection lost during COMMIT leaves the outcome open; any other failure recorded nothing.
    if (!WaypointError.is(error, 'STORE_UNAVAILABLE') || error.details.commitInFlight !== true) throw error;
    const deadline = Date.now() + ASK_FOR_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      let journal: Journal | null = null;
      try {
        journal = await store.getJournal(journalId);
      } catch (asked) {
        if (!WaypointError.is(asked, 'STORE_UNAVAILABLE')) throw asked;
      }
      if (journal !== null) {
        if (journal.state === 'committed') return journal;
        throw error;
      }
      if (Date.now() + wait > deadline) throw new CommitOutcomeUnknownError(journalId, error);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Runs `finish` (a journal's rollback record) again while the store is briefly unavailable. */
export async function whileUnavailable<T>(finish: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await finish();
    } catch (error) {
      if (attempt >= attempts || !WaypointError.is(error, 'STORE_UNAVAILABLE')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/**
 * The store connection broke while a rewind's commit was in flight and the store did not answer
 * afterwards, so whether it landed is unknown. The files stay as the rewind wrote them and the
 * journal pending: the next open of the store on this machine reads its real state and rolls the
 * files back unless it committed.
 */
export class CommitOutcomeUnknownError extends StoreError {
  constructor(journalId: string, cause: WaypointError) {
    super({
      code: 'STORE_UNAVAILABLE',
      message:
        `The store went away while rewind ${journalId} was being recorded, and whether it was recorded is unknown: ${cause.message} ` +
        'The files are left as the rewind wrote them and its journal pending; open the store again once it is reachable (any waypoint command) and recovery puts them right.',
      details: { ...(cause.details as Record<string, unknown>), journalId, outcome: 'unknown' },
      cause,
    });
  }
}
