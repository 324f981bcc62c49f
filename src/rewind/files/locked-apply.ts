import type { BlobStore } from '../../blobs/index.js';
import { timingMark } from './apply-timing.js';
import type { Store } from '../../store/index.js';
import type { Workspace } from '../../workspace/index.js';
import { recoverJournalsUnder } from './journal-recovery.js';
import { RewindLedger } from './rewind-ledger.js';
import { lockWorkspace, type WorkspaceLock } from './workspace-lock.js';

/** One run of an operation's body: the first without the workspace lock, a second holding it. */
export interface Pass {
  lock: WorkspaceLock | null;
  /** The session's ledger position when the operation began. */
  ledgerSeq: number;
  /** The session's ledger as this pass found it: what its plan takes as rewound already. */
  ledger: RewindLedger;
}

/** The plan of a first pass went stale before it could be applied; the lock is held for the second. */
export class ReplanUnderLock extends Error {
  constructor(
    readonly lock: WorkspaceLock,
    /** The ledger as read under the lock. */
    readonly ledger: RewindLedger,
  ) {
    super('planned again under the workspace lock');
  }
}

/**
 * Runs `body` so that rewinds, redos and forks changing files of one workspace take effect one at
 * a time, across processes, each as if alone. The first pass plans without the workspace lock —
 * a refusal (conflict, nothing to rewind, missing snapshot) then writes nothing at all, not even a
 * lock — and takes the lock only to apply ({@link applyInPass}). If another rewind or redo of the
 * session was recorded meanwhile, or a crashed process's journal on the workspace had to be rolled
 * back first, `body` runs again holding the lock, and plans afresh.
 */
export async function inPasses<Result>(store: Store, sessionId: string, body: (pass: Pass) => Promise<Result>): Promise<Result> {
  // Read once for the first pass: its plan and the check under the lock start from this state.
  const ledger = await RewindLedger.load(store, sessionId);
  timingMark('ledger');
  let lock: WorkspaceLock;
  let relocked: RewindLedger;
  try {
    return await body({ lock: null, ledgerSeq: ledger.seq, ledger });
  } catch (error) {
    if (!(error instanceof ReplanUnderLock)) throw error;
    lock = error.lock;
    relocked = error.ledger;
  }
  try {
    return await body({ lock, ledgerSeq: ledger.seq, ledger: relocked });
  } finally {
    await lock.release();
  }
}

/**
 * The apply of one pass: under the lock the second pass holds, or, in the first, under a lock
 * taken now — only if the plan still holds (else {@link ReplanUnderLock}, handing the lock over).
 */
export async function applyInPass<Result>(
  context: { store: Store; blobs: BlobStore; workspace: Workspace; sessionId: string; purpose: string; pass: Pass },
  apply: (lock: WorkspaceLock) => Promise<Result>,
): Promise<Result> {
  const { store, pass } = context;
  if (pass.lock) return apply(pass.lock);
  const lock = await lockWorkspace(store, context.workspace, { purpose: context.purpose });
  timingMark('lock');
  let handedOver = false;
  try {
    const recovered = await recoverJournalsUnder(store, context.blobs, lock);
    const ledger = await RewindLedger.load(store, context.sessionId);
    timingMark('recover+ledger');
    if (recovered.recovered.length > 0 || ledger.seq !== pass.ledgerSeq) {
      handedOver = true;
      throw new ReplanUnderLock(lock, ledger);
    }
    return await apply(lock);
  } finally {
    if (!handedOver) await lock.release();
    timingMark('unlock');
  }
}
