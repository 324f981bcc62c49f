/**
 * Waypoint: checkpoints, rewind and fork for AI agent sessions. This is the front door: open a
 * store, run an agent over it (`createRuntime`), and the operations every surface shares (rewind in
 * each form, redo, edit, retry, the four forks, status), with their request schemas, result types
 * and errors. `waypoint/testing` holds what tests need (the scripted model, the store conformance
 * suite). Everything else is internal and may change.
 *
 * @example
 * import { openWaypoint, createRuntime } from 'waypoint';
 * const waypoint = await openWaypoint({ path: '/tmp/w/store/waypoint.db' });
 * const runtime = createRuntime({ waypoint, model: 'anthropic:claude-sonnet-4-5' });
 */

// Open a store.
export { openWaypoint, defaultStorePath, type Waypoint, type OpenWaypointOptions } from './engine/index.js';

// The agent runtime.
export {
  AgentRuntime,
  createRuntime,
  DEFAULT_SYSTEM_PROMPT,
  MODEL_STRING_FORMS,
  ScriptedModel,
  defineTool,
  defaultTools,
  type RuntimeOptions,
  type RunTurnOptions,
  type TurnResult,
  type RuntimeEvents,
  type TurnScope,
  type RuntimeTool,
  type ToolContext,
  type ToolResult,
  type ToolOutput,
  type ApproveEffect,
  type EffectDecision,
  type EffectApprovalRequest,
  type LanguageModelV3,
  type CompactionResult,
} from './runtime/index.js';
export { CheckpointedFs, checkpointPatch, type FsChange } from './checkpoint/index.js';

// Your own AI SDK loop: tools whose file changes are checkpointed in a turn you open and end.
export {
  checkpointTools,
  checkpointedFs,
  startTurn,
  type CheckpointToolsOptions,
  type ToolCaptureReport,
  type StartTurnOptions,
  type EndTurnOptions,
  type EndedTurn,
  type TurnHandle,
} from './runtime/index.js';

// The operations.
export {
  rewind,
  RewindRequest,
  previewRewind,
  PreviewRewindRequest,
  applyRewind,
  ApplyRewindRequest,
  redo,
  RedoRequest,
  rewindToSavePoint,
  SavePointRewindRequest,
  edit,
  EditRequest,
  retry,
  RetryRequest,
  forkSession,
  ForkSessionRequest,
  previewFork,
  forkFromSavePoint,
  ForkFromRequest,
  rewindStatus,
  RewindStatusRequest,
  restorePreserved,
  RestorePreservedRequest,
  type RestorePreservedResult,
  storeUsage,
  StoreUsageRequest,
  collectGarbage,
  CollectGarbageRequest,
  sweepLeftovers,
  SweepLeftoversRequest,
  type SweepLeftoversResult,
  type UsageReport,
  type SessionUsage,
  type GarbageReport,
  type OperationContext,
  type OperationEvents,
  type RewindForm,
  type RewindResult,
  type ConversationMove,
  type RedoResult,
  type ConversationRedo,
  type RetryResult,
  type ForkSessionResult,
  type RewindStatus,
} from './operations/index.js';

// Types.
export type { Session, SessionKind, Message, MessageWithParts, Part, Checkpoint, Turn, TurnStatus, JsonObject, JsonValue } from './model/index.js';
export type {
  FileRewindPreview,
  FileRewindResult,
  PreviewFile,
  RewoundFile,
  FileRewindStatus,
  ConflictResolution,
  FileResolution,
  RewindScope,
  SavePoint,
  EditResult,
} from './rewind/index.js';
export type { ForkPreview, ForkStrategy, ForkWorkspace } from './fork/index.js';
export type { Store, StoreCapabilities, StoreFootprint, StoreFootprintPart } from './store/index.js';

// Errors: every refusal is a WaypointError with a stable `code`; match on it with `WaypointError.is(error, code)`.
export { WaypointError, InvalidArgumentError, NotFoundError, ConflictError } from './model/index.js';
export { RewindConflictError } from './rewind/index.js';
export { ForkConfirmationRequiredError } from './fork/index.js';
export { TurnRunningError, WorkspaceMissingError, NothingToUndoError } from './operations/index.js';
export { ModelError } from './runtime/index.js';
