import type { WorkspacePath } from './workspace-path.js';

/** One file or symlink seen by a scan. */
export interface SnapshotEntry {
  kind: 'file' | 'symlink';
  /**
   * sha256 hex of the bytes (of the link text for a symlink), or null when the content was not
   * read: the file is too large or unreadable (the scan lists it in `skipped` with the reason).
   */
  hash: string | null;
  size: number;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** The tracked files of a workspace at one instant, keyed by root-qualified path. */
export type Snapshot = Map<WorkspacePath, SnapshotEntry>;

/** Why a path is not (fully) covered by a scan. */
export type SkipReason =
  /** Larger than `maxFileSize`: in the snapshot with a null hash, content not kept. */
  | 'too_large'
  /** The scan stopped at `maxFiles`; `path` names the root where it stopped. */
  | 'too_many_files'
  /** Could not be read (permissions, I/O error); in the snapshot with a null hash when it is a file. */
  | 'unreadable'
  /** Matched a .gitignore or .waypointignore rule (directories are reported once, not descended). */
  | 'ignored'
  /** A socket, FIFO or device: there is no content to keep. */
  | 'not_regular'
  /** A name that is not valid UTF-8 (`path` shows it escaped: bad bytes as `\xHH`): not tracked, a directory not descended. */
  | 'invalid_name'
  /** One of Waypoint's own store files (found by identity where a command moved it): never tracked. */
  | 'store_file';

/** A path a scan could not cover, and why. */
export interface SkippedPath {
  path: WorkspacePath;
  reason: SkipReason;
  /** Size in bytes, when known. */
  size?: number;
  /** A system error code or a short explanation. */
  detail?: string;
  /**
   * For entries a scan cannot track but can still stat (`invalid_name`): kind, size, mode, times
   * and inode, so two scans tell whether it was created, deleted or changed in between.
   */
  signature?: string;
}
