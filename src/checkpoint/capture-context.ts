import { ConflictError, parseInput, type Session } from '../model/index.js';
import { OpenCaptureContextSchema } from './capture-input-schemas.js';
import type { Store } from '../store/store.js';
import type { BlobStore } from '../blobs/index.js';
import type { ScanIo, Workspace } from '../workspace/index.js';
import { sessionWorkspace } from './session-workspace.js';

/**
 * Everything a capture needs: where records and blobs go, which files the session may touch, and
 * which turn the changes belong to. `anchorMessageId` is the turn's user message (the rewind target
 * a person picks); `turnId` may be null for changes made outside a turn (they then have no anchor).
 */
export interface CaptureContext {
  store: Store;
  blobs: BlobStore;
  workspace: Workspace;
  sessionId: string;
  turnId: string | null;
  anchorMessageId: string | null;
  /**
   * The filesystem calls of this context's workspace scans (default: node:fs). A long-lived
   * process that tracks changes answers unchanged paths from memory (the Claude hooks' helper).
   */
  scanIo?: Partial<ScanIo>;
}

/**
 * Builds a {@link CaptureContext} for a running turn: loads the session (its workdir and declared
 * roots become the workspace, the store's own directory excluded) and takes the anchor from the
 * turn's user message. Throws `SESSION_NOT_FOUND` / `TURN_NOT_FOUND`, `TURN_OF_OTHER_SESSION` when
 * the turn belongs to another session, `SESSION_HAS_NO_WORKDIR` when there are no files to capture.
 *
 * @example
 * const context = await openCaptureContext({ store, blobs, sessionId, turnId })
 * await applyToolWrite(context, { path: 'src/a.ts', content: 'export {}\n', toolCallId: 'call_1' })
 */
export async function openCaptureContext(options: {
  store: Store;
  blobs: BlobStore;
  sessionId: string;
  turnId: string | null;
  /** Defaults to the session's workspace (`sessionWorkspace`). */
  workspace?: Workspace;
}): Promise<CaptureContext> {
  parseInput(OpenCaptureContextSchema, options, 'options');
  const session: Session = await options.store.getSession(options.sessionId);
  let anchorMessageId: string | null = null;
  if (options.turnId !== null) {
    const turn = await options.store.getTurn(options.turnId);
    if (turn.sessionId !== session.id) {
      throw new ConflictError({
        code: 'TURN_OF_OTHER_SESSION',
        message: `Turn ${turn.id} belongs to session ${turn.sessionId}, not ${session.id}; capture changes with the session that runs the turn.`,
        details: { turnId: turn.id, sessionId: session.id, turnSessionId: turn.sessionId },
      });
    }
    anchorMessageId = turn.userMessageId;
  }
  return {
    store: options.store,
    blobs: options.blobs,
    workspace: options.workspace ?? sessionWorkspace(session, options.store.location),
    sessionId: session.id,
    turnId: options.turnId,
    anchorMessageId,
  };
}
