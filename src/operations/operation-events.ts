import type { Session } from '../model/index.js';
import type { ForkSessionResult } from './fork-result.js';
import type { RedoResult } from './redo.js';
import type { RewindResult } from './rewind-result.js';

/**
 * What the operations emit, each only after what it reports committed. A surface (the chat, a
 * protocol server) listens to these instead of guessing from its own calls.
 */
export interface OperationEvents {
  /**
   * The session's conversation or files went back (or forward again): `rewind` (every form),
   * `redo`, `save-point`, and `edit` / `retry` (emitted before their new turn starts). `result` is
   * the rewind's own result when it has one.
   */
  rewind: { sessionId: string; session: Session; result: RewindResult | RedoResult | null; kind: 'rewind' | 'redo' | 'save-point' | 'edit' | 'retry' };
  /** A child session was created (or found again for the same command id). */
  fork: { sessionId: string; result: ForkSessionResult };
}
