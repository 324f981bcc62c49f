// The fork folder: the four ways to branch a session (from a checkpoint, from a message, stable,
// side chat), shared or isolated workspaces, forks at a turn's save point, the effects policy for forks,
// and the lineage of a session family.
export { SessionForker, FORK_FILES_ENTRY, FORK_ORIGIN_ENTRY, type SessionForkerOptions } from './session-forker.js';
export type { ForkEvents, ForkOriginData, ForkPreview, ForkResult, ForkStrategy } from './fork-types.js';
export { ForkRequest, ForkFromRequest, ForkWorkspace, EffectPolicy } from './fork-schemas.js';
export { pinTurnBoundary, checkStableBoundary, type GoalBoundary, type StableBoundary } from './stable-boundary.js';
export { checkpointsAfterMessage, checkpointsFrom } from './changes-after.js';
export {
  copiedState,
  executionStateOf,
  withoutActiveRun,
  lastExecutionState,
  GOAL_ENTRY,
  VERIFICATION_ENTRY,
  MODEL_CHOICE_ENTRY,
  EXECUTION_STATE_ENTRY,
  GOAL_ACTIVE_RUN_FIELD,
  type CopiedState,
} from './fork-state.js';
export { forkNotes, SIDE_CHAT_REMINDER, type ForkKind } from './fork-notes.js';
export { materializeAtForkPoint, discardWorkTree, type IsolatedMaterialization } from './isolated-workspace.js';
export type { IgnoredMode, IgnoredEntryReport, NotCopiedEntry, NotCopiedReason, ForkGitCheckout } from './isolated-report.js';
export type { NoGitReason } from './git-checkout.js';
export { effectPolicyFor, type EffectPolicyOptions } from './effect-policy.js';
export { listChildren, listAncestors, sessionFamily, renderFamilyTree, type FamilyNode } from './lineage.js';
export {
  NoWorkspaceCheckpointError,
  ForkConfirmationRequiredError,
  ForkStateUnavailableError,
  GitCommandFailedError,
  NotAnIsolatedForkError,
  ForkHasUnrecordedChangesError,
} from './fork-errors.js';
export { discardFork, type DiscardForkResult } from './discard-fork.js';
