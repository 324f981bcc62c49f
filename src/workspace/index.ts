export { Workspace, type WorkspaceOptions } from './workspace.js';
export {
  createWorkspaceRoot,
  isTrackedKind,
  ROOT_KINDS,
  type RootKind,
  type WorkspaceRoot,
  type WorkspaceRootSpec,
} from './workspace-root.js';
export { toWorkspacePath, parseWorkspacePath, type WorkspacePath } from './workspace-path.js';
export { resolveInRoot, resolveEntryInRoot, type ResolvedPath, type ResolveOptions, type Exclusions, type EntryStat } from './resolve-path.js';
export { LINK_MODE, isLinkMode, sameMode } from './link-mode.js';
export { PathOutsideWorkspaceError, type PathRefusalReason } from './path-outside-workspace-error.js';
export { PathProtectedError, type ProtectedOperation } from './path-protected-error.js';
export { FileReadFailedError } from './file-read-failed-error.js';
export { FileWriteFailedError, type FileWriteOperation } from './file-write-failed-error.js';
export {
  writeFileAtomic,
  prepareFileWrite,
  prepareFileWriteInPool,
  fsyncDirectory,
  fsyncDirectories,
  installIfAbsent,
  tempPathOf,
  TEMP_FILE_PATTERN,
  BACKUP_SUFFIX,
  type AtomicWriteOptions,
  type AtomicWriteResult,
  type PreparedFileWrite,
} from './atomic-write.js';
export { HIDDEN_NAME_KEPT } from './temp-id.js';
export { unlinkQuietly } from './quiet-unlink.js';
export { deletePath, type DeleteResult } from './delete-path.js';
export {
  findLeftovers,
  parseLeftoverName,
  readLeftover,
  removeLeftover,
  isSameLeftover,
  type Leftover,
  type LeftoverName,
  type LeftoverSearch,
} from './leftover-files.js';
export { replaceIf, moveIf, type HeldFile, type KnownFile, type DisplacedFile, type ReplaceOutcome, type MoveIfOutcome } from './replace-if.js';
export { movePath, type MoveOptions } from './move-path.js';
export { writtenStamps, type WrittenIdentity, type WrittenStamp } from './written-stamps.js';
export { KeptFiles, keptFilesOf, removeAbandonedKeptFiles } from './kept-files.js';
export type { FileIdentity } from './file-identity.js';
export { readFileState, type FileState, type ExistingFileState, type FileKind, type ReadFileStateOptions } from './file-state.js';

export { IgnoreRules, IGNORE_FILE_NAMES, type IgnoreMatch, type IgnoreSource } from './ignore-rules.js';
export { workspaceIgnores, type IgnoreStatus, type WorkspaceIgnores } from './ignore-status.js';
export { findGitWorkTree, type GitWorkTree } from './git-work-tree.js';
export type { TrackedPaths } from './git-index.js';
export {
  StatCache,
  createStatCacheState,
  isStatCacheState,
  DEFAULT_RACY_WINDOW_MS,
  type StatCacheState,
  type StatSignature,
} from './stat-cache.js';
export type { Snapshot, SnapshotEntry, SkippedPath, SkipReason } from './snapshot.js';
export { nodeScanIo, type ScanChanges, type ScanChangeSource, type ScanIo, type ScanStats } from './scan-io.js';
export { pathsThatMayDiffer } from './snapshot-derivation.js';
export { scanWorkspace, DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_FILES, type ScanOptions, type ScanResult } from './scanner.js';
export { diffSnapshots, type SnapshotDiff, type FileModification, type FileVersion } from './diff-snapshots.js';
export { materializeTree, fsyncTreeEntries, copyNewFile, type MaterializeFile, type MaterializeOptions, type MaterializeResult } from './materialize.js';
