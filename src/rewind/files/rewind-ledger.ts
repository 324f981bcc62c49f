import type { Entry } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import { FILE_REWIND_ENTRY } from './journaled-apply.js';
import type { AppliedFileRewind, FileRewindEntryData } from './file-rewind-types.js';

/**
 * The applied file rewinds of a session, read from its `file-rewind` entries, so that what was
 * rewound survives restarts: a checkpoint is rewound when the latest entry naming it leaves it
 * undone (a rewind does; a redo of a rewind puts it back; a redo of a redo undoes it again).
 */
export class RewindLedger {
  private constructor(private readonly state: LedgerState) {}

  /**
   * Entries are append-only and numbered in order within a session, so each load reads only the
   * entries after the last one seen by this store object (every rewind would otherwise re-read and
   * parse the whole ledger: O(rewinds so far) per rewind). What is derived from them (which
   * checkpoints are rewound, which rewinds were redone) is computed once per state of the ledger,
   * and rewinds are copied only when asked for.
   */
  static async load(store: Store, sessionId: string): Promise<RewindLedger> {
    let sessions = loaded.get(store);
    if (!sessions) loaded.set(store, (sessions = new Map()));
    const known = sessions.get(sessionId) ?? { lastSeq: 0, rewinds: [] };
    const entries = await store.listEntries(sessionId, { type: FILE_REWIND_ENTRY, afterSeq: known.lastSeq });
    const current = entries.length === 0 ? known : { lastSeq: entries.at(-1)!.seq, rewinds: [...known.rewinds, ...entries.map(toApplied)] };
    const latest = sessions.get(sessionId);
    if (!latest || latest.lastSeq <= current.lastSeq) sessions.set(sessionId, current);
    return new RewindLedger(current);
  }

  /** The sequence number of the newest entry read: it changes exactly when a rewind or redo is recorded. */
  get seq(): number {
    return this.state.lastSeq;
  }

  /** Every applied rewind and redo, oldest first (copies: changing them changes nothing here). */
  get rewinds(): AppliedFileRewind[] {
    const redone = redoneOf(this.state);
    return this.state.rewinds.map((rewind) => copyApplied(rewind, redone.has(rewind.rewindId)));
  }

  find(rewindId: string): AppliedFileRewind | undefined {
    const rewind = this.state.rewinds.find((candidate) => candidate.rewindId === rewindId);
    return rewind ? copyApplied(rewind, redoneOf(this.state).has(rewind.rewindId)) : undefined;
  }

  /** Ids of checkpoints whose change is currently undone by a recorded rewind. */
  rewoundCheckpoints(): Set<string> {
    if (!this.state.rewound) {
      const undoesChange = new Map<string, boolean>();
      const latest = new Map<string, boolean>();
      for (const rewind of this.state.rewinds) {
        const effect = rewind.action === 'rewind' ? true : !(undoesChange.get(rewind.undoes ?? '') ?? true);
        undoesChange.set(rewind.rewindId, effect);
        for (const id of rewind.checkpointIds) latest.set(id, effect);
      }
      this.state.rewound = new Set([...latest].filter(([, rewound]) => rewound).map(([id]) => id));
    }
    return new Set(this.state.rewound);
  }
}

/**
 * The ledger read so far, per store object and session (entries never change once written). A
 * state is never changed once built, except to remember what was derived from it.
 */
interface LedgerState {
  lastSeq: number;
  rewinds: readonly AppliedFileRewind[];
  rewound?: ReadonlySet<string>;
  redone?: ReadonlySet<string>;
}

const loaded = new WeakMap<Store, Map<string, LedgerState>>();

/** The rewinds a later redo undid. */
function redoneOf(state: LedgerState): ReadonlySet<string> {
  state.redone ??= new Set(state.rewinds.map((rewind) => rewind.undoes).filter((id): id is string => id !== null));
  return state.redone;
}

/** A copy callers may change without touching the cache. */
function copyApplied(rewind: AppliedFileRewind, redone: boolean): AppliedFileRewind {
  return { ...rewind, checkpointIds: [...rewind.checkpointIds], files: rewind.files.map((file) => ({ ...file })), redone };
}

function toApplied(entry: Entry): AppliedFileRewind {
  const data = entry.data as FileRewindEntryData;
  return {
    rewindId: data.rewindId,
    entryId: entry.id,
    sessionId: entry.sessionId,
    action: data.action,
    kind: data.kind,
    undoes: data.undoes,
    checkpointIds: [...data.checkpointIds],
    files: data.files.map((file) => ({ ...file })),
    createdAt: entry.createdAt,
    redone: false,
  };
}
