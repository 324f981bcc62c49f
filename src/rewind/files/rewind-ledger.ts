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
  private constructor(readonly rewinds: AppliedFileRewind[]) {}

  static async load(store: Store, sessionId: string): Promise<RewindLedger> {
    const entries = await store.listEntries(sessionId, { type: FILE_REWIND_ENTRY });
    const rewinds = entries.map(toApplied);
    const undone = new Set(rewinds.map((rewind) => rewind.undoes).filter((id): id is string => id !== null));
    for (const rewind of rewinds) rewind.redone = undone.has(rewind.rewindId);
    return new RewindLedger(rewinds);
  }

  find(rewindId: string): AppliedFileRewind | undefined {
    return this.rewinds.find((rewind) => rewind.rewindId === rewindId);
  }

  /** Ids of checkpoints whose change is currently undone by a recorded rewind. */
  rewoundCheckpoints(): Set<string> {
    const undoesChange = new Map<string, boolean>();
    const latest = new Map<string, boolean>();
    for (const rewind of this.rewinds) {
      const effect = rewind.action === 'rewind' ? true : !(undoesChange.get(rewind.undoes ?? '') ?? true);
      undoesChange.set(rewind.rewindId, effect);
      for (const id of rewind.checkpointIds) latest.set(id, effect);
    }
    return new Set([...latest].filter(([, rewound]) => rewound).map(([id]) => id));
  }
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
