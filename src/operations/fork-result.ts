import type { ForkResult } from '../fork/index.js';
import type { Session } from '../model/index.js';

/** What every fork returns, whichever kind and surface. */
export interface ForkSessionResult {
  type: 'fork';
  parentSessionId: string;
  /** The child. */
  session: Session;
  /** False when the same command id had already forked (nothing was done again). */
  created: boolean;
  from: ForkResult['from'];
  strategy: ForkResult['strategy'];
  /** The message the child's inherited history ends at (null: empty). */
  at: string | null;
  workdir: string | null;
  /** Shared workspace: the parent's file rewind (redo it on the parent to bring the files back). */
  fileRewind: ForkResult['fileRewind'];
  /** Isolated workspace: the directory materialized at the fork point, its git checkout, the ignored paths and what was not copied. */
  materialized: ForkResult['materialized'];
}

export function forkSessionResult(parentSessionId: string, result: ForkResult): ForkSessionResult {
  return {
    type: 'fork',
    parentSessionId,
    session: result.session,
    created: result.created,
    from: result.from,
    strategy: result.strategy,
    at: result.at,
    workdir: result.session.workdir,
    fileRewind: result.fileRewind,
    materialized: result.materialized,
  };
}
