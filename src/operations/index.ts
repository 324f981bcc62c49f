// The operations: every user-level action on a session, owned once. Each validates its input with
// the zod schema that is also its type, checks its own preconditions (idle session, a user-input
// target, confirmation) before changing anything, emits its event after the commit, and returns
// the one result shape every surface (CLI, chat, runtime, a server) renders.
export { requireIdle, type OperationContext, type OperationEventSink } from './operation-context.js';
export type { OperationEvents } from './operation-events.js';
export { TurnRunningError, WorkspaceMissingError, NothingToUndoError, GcNeedsConfirmationError, type SessionToDelete } from './operation-errors.js';
export { requireWorkspace, resolutionKeys } from './session-checks.js';
export type { RewindForm, RewindResult, ConversationMove } from './rewind-result.js';
export { rewind, RewindRequest } from './rewind.js';
// The refusal of a direct rewind that would overwrite later changes, for surfaces that word its hint.
export { RewindOverwritesChangesError } from '../rewind/index.js';
export { previewDirectRewind, type DirectRewindPreviewResult } from './preview-direct-rewind.js';
export { previewRewind, PreviewRewindRequest } from './preview-rewind.js';
export { applyRewind, ApplyRewindRequest } from './apply-rewind.js';
export { redo, RedoRequest, type RedoResult, type ConversationRedo } from './redo.js';
export { previewRedo, PreviewRedoRequest, type RedoPreview } from './preview-redo.js';
export { rewindToSavePoint, SavePointRewindRequest } from './rewind-to-save-point.js';
export { edit, EditRequest } from './edit.js';
export { retry, RetryRequest, type RetryResult } from './retry.js';
export type { ForkSessionResult } from './fork-result.js';
export { previewFork } from './preview-fork.js';
export { forkSession, ForkSessionRequest } from './fork-session.js';
export { continueSession, ContinueSessionRequest } from './continue-session.js';
export { forkFromSavePoint, ForkFromRequest } from './fork-from-save-point.js';
export { discardFork, DiscardForkRequest } from './discard-fork.js';
export { rewindStatus, RewindStatusRequest, type RewindStatus } from './rewind-status.js';
export { storeUsage, StoreUsageRequest, type UsageReport, type SessionUsage } from './store-usage.js';
export { collectGarbage, CollectGarbageRequest, sessionsToDelete, type GarbageReport } from './collect-garbage.js';
export { restorePreserved, RestorePreservedRequest, type RestorePreservedResult } from './restore-preserved.js';
export { sweepLeftovers, SweepLeftoversRequest, type SweepLeftoversResult } from './sweep-leftovers.js';
export { exportSession, ExportSessionRequest, type ExportSessionResult } from './export-session.js';
export { importSession, ImportSessionRequest, type ImportSessionResult } from './import-session.js';
export { TransferError, type TransferProgress } from '../transfer/index.js';
