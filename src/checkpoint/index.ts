/**
 * Capture: every file change an agent makes becomes a checkpoint (one row per mutation).
 *
 * Data contract (what `src/rewind/` reads through the Store):
 * - `path` / `toPath` are workspace keys `<root>:<relative path>` (`workspace:src/a.ts`); resolve
 *   them with `Workspace.resolveKey`. Only tracked roots (workspace, custom) appear.
 * - `op`: `create` (beforeHash null), `modify`, `delete` (afterHash null), `rename` / `move`
 *   (`path` → `toPath`, beforeHash = afterHash = the content's hash; hashes null for a directory),
 *   `mkdir` / `rmdir` (hashes null). `rename` and `move` differ only in which call made them.
 * - Modes: a regular file's `beforeMode`/`afterMode` is its permission bits (`0o644`); a symlink's
 *   is `SYMLINK_MODE | bits` (its blob is the link text); a directory's is `DIRECTORY_MODE | bits`.
 *   `modeKind(mode)` tells them apart.
 * - `status: 'skipped'` means the content was not kept: both hashes are null and `skipReason` says
 *   why — `too_large`, `recursive_delete`, `unreadable`, `ignored`, `before_missing`. Rewinding it
 *   must be reported as an error, never as a success.
 * - Every non-null hash is readable from the BlobStore: contents are stored before the row is
 *   written (the after blob delta-encoded against the before). No patch is stored (`patch` is
 *   null unless a caller recorded one; older stores kept one): `checkpointPatch` derives the
 *   unified diff from the blobs when asked, null for binary, symlinks, renames, skipped rows and
 *   files over 2 MiB. The blobs are the truth.
 * - `source`: `tool` (Write/Edit), `fs` (CheckpointedFs), `exec` (scan around a shell command;
 *   a rename there is a delete + a create). `turnId` and `anchorMessageId` (the turn's user message)
 *   are set when the capture runs inside a turn.
 * - Within a turn every mutation is its own row, the after of one being the before of the next, so
 *   undoing newest-first peels a file back layer by layer; identical content is stored once.
 */
export { sessionWorkspace, storeFilesOf, PRIMARY_ROOT } from './session-workspace.js';
export { openCaptureContext, type CaptureContext } from './capture-context.js';
export {
  DEFAULT_CHECKPOINT_MAX_FILE_SIZE,
  SYMLINK_MODE,
  DIRECTORY_MODE,
  modeKind,
} from './file-capture.js';
export { recordChanges, storeChangeContents, type PendingChange, type ChangeOrigin } from './record-changes.js';
export { isBinaryContent, unifiedPatch, countLineChanges } from './text-patch.js';
export { checkpointPatch } from './checkpoint-patch.js';
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
export { FileChangedDuringWriteError } from './file-changed-during-write-error.js';
export { CheckpointedFs, type CheckpointedFsOptions, type FsChange } from './checkpointed-fs.js';
export {
  abandonExec,
  beginExec,
  endExec,
  captureExec,
  type ExecCaptureOptions,
  type ExecCaptureResult,
  type ExecHandle,
  type ExecScanProgress,
  type UncoveredPath,
} from './exec-capture.js';
export { markScanBaseline, captureSinceBaseline, baselineHandle, type ScanBaseline } from './exec-baseline.js';
export { unseenChanges } from './unseen-changes.js';
export { recoverWriteIntents, type WriteRecoveryReport } from './write-recovery.js';
export { compactScanState, EXEC_SCAN_ENTRY, type ExecScanState } from './exec-scan-state.js';
export { listRecentCheckpoints, displayPath, DEFAULT_CHECKPOINT_LIST_LIMIT, type ListedCheckpoint } from './checkpoint-list.js';
export { summarizeTurn, type TurnSummary, type TurnFileChange } from './turn-summary.js';
export {
  trimSessions,
  planSessionTrim,
  type SessionTrimPlan,
  deleteSessionWithSubagents,
  type TrimSessionsOptions,
  type TrimSessionsReport,
  type RemovedSession,
  type RetainedSessionSummary,
  type DeleteSessionReport,
} from './retention.js';
