export { sessionWorkspace, PRIMARY_ROOT } from './session-workspace.js';
export { openCaptureContext, type CaptureContext } from './capture-context.js';
export {
  DEFAULT_CHECKPOINT_MAX_FILE_SIZE,
  SYMLINK_MODE,
  DIRECTORY_MODE,
  modeKind,
} from './file-capture.js';
export { recordChanges, storeChangeContents, type PendingChange, type ChangeOrigin } from './record-changes.js';
export { isBinaryContent, unifiedPatch, countLineChanges } from './text-patch.js';
export {
  recordToolChange,
  applyToolWrite,
  applyToolEdit,
  type ToolChange,
  type ToolWriteInput,
  type ToolWriteResult,
  type ToolEditInput,
  type ToolEditResult,
} from './tool-checkpoint.js';
export { CheckpointedFs, type CheckpointedFsOptions, type FsChange } from './checkpointed-fs.js';
export {
  beginExec,
  endExec,
  captureExec,
  type ExecCaptureOptions,
  type ExecCaptureResult,
  type ExecHandle,
  type UncoveredPath,
} from './exec-capture.js';
export { EXEC_SCAN_ENTRY, type ExecScanState } from './exec-scan-state.js';
export { listRecentCheckpoints, displayPath, DEFAULT_CHECKPOINT_LIST_LIMIT, type ListedCheckpoint } from './checkpoint-list.js';
export { summarizeTurn, type TurnSummary, type TurnFileChange } from './turn-summary.js';
export { trimSessions, type TrimSessionsOptions, type TrimSessionsReport } from './retention.js';
