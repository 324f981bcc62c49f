export { FileRewinder, type FileRewinderOptions } from './file-rewinder.js';
export { recoverJournals, journalWorkspace, type RecoveryReport, type RecoverOptions, type ResolveJournalWorkspace } from './journal-recovery.js';
export { FILE_REWIND_ENTRY, FILE_REWIND_JOURNAL, type ApplyHooks, type PreservedContent } from './journaled-apply.js';
export { JOURNAL_RESOLVED_ENTRY, resolvePendingJournal, type JournalResolution } from './journal-resolve.js';
export { listPreserved, PRESERVED_ENTRY, restorePreserved, type PreservedSave } from './preserved-contents.js';
export { reverseMerge } from './reverse-merge.js';
export {
  DEFAULT_LEFTOVER_MIN_AGE_MS,
  sweepLeftovers,
  type KeptLeftover,
  type LeftoverKeepReason,
  type LeftoverSweepInput,
  type LeftoverSweepReport,
  type SweptLeftover,
} from './leftover-sweep.js';
export { lockWorkspace, type WorkspaceLock, type LockOptions } from './workspace-lock.js';
export { FileRewindPreviewRequest } from './file-rewind-schemas.js';
export type { DirectRewindPreview, DirectRewindTarget, OverwriteChanged } from './direct-rewind-plan.js';
export type { RedoFile } from './redo-plan.js';
export type {
  AppliedFileRewind,
  ApplyOptions,
  ConflictResolution,
  FileResolution,
  FileRewindApplyEvent,
  FileRewindEntryData,
  FileRewindEvents,
  FileRewindKind,
  FileRewindPreview,
  FileRewindResult,
  FileRewindStatus,
  PreviewFile,
  RewoundFile,
  ShellChange,
  TurnRollbackError,
  TurnRollbackResult,
} from './file-rewind-types.js';
export {
  NothingToRewindError,
  RewindApplyFailedError,
  RewindConflictError,
  RewindNotFoundError,
  RewindOverwritesChangesError,
  RewindUnrecoverableError,
  SnapshotMissingError,
  WorkspaceBusyError,
  type MissingSnapshot,
  type RewindConflictFile,
  type ChangedFile,
  type UnrestoredFile,
} from './errors/index.js';
