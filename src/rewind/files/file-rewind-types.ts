import type { CheckpointOp, JsonObject } from '../../model/index.js';
import type { JournalCommitWrites } from '../../store/index.js';

/**
 * How one file stands in a preview. Anything but `safe` blocks the rewind unless the file has a
 * chosen {@link ConflictResolution} (only `external_modified` files can have one).
 */
export type FileRewindStatus = 'safe' | 'external_modified' | 'checkpoint_missing' | 'checkpoint_unreadable' | 'file_read_failed' | 'unsupported_checkpoint';

/**
 * A person's way past a conflict, per file: `merge` reverse-applies the agent's own change onto the
 * current text (keeping later edits elsewhere in the file; only when it applies cleanly), `force`
 * overwrites (the current content is kept in the blob store first, so a redo brings it back).
 */
export type ConflictResolution = 'merge' | 'force';

/**
 * A person's choice for one file of a checked rewind (preview, then apply): a {@link ConflictResolution},
 * or `skip`: the file is left as it is on disk and its changes stay on record as not rewound (a
 * later undo offers them again; a redo of this rewind never touches the file).
 */
export type FileResolution = ConflictResolution | 'skip';

/** Which operation recorded a file rewind. */
/** `preserved`: a content a rewind kept aside, put back at its path (`restorePreserved`). */
export type FileRewindKind = 'checkpoint' | 'cascade' | 'turn' | 'preview' | 'redo' | 'preserved';

/** One file in a preview: where it stands now, what the rewind would make of it, and why. */
export interface PreviewFile {
  /** Workspace key, `root:relative`. */
  path: string;
  status: FileRewindStatus;
  /** Why the file is not safe, in words a person can act on; null when safe. */
  reason: string | null;
  /** What applying does to this path. `move`: the file comes back from `movedFrom`. */
  action: 'write' | 'delete' | 'move' | 'none';
  movedFrom: string | null;
  /** Content hash on disk now (null: absent). */
  currentHash: string | null;
  /** What the newest checkpoint of the rewind says the file should be now (its after hash). */
  expectedHash: string | null;
  /** Content after the rewind (null: the file will not exist). */
  targetHash: string | null;
  targetMode: number | null;
  /** The checkpoints that touch this path, newest first. */
  checkpointIds: string[];
  /** Whether `merge` applies cleanly (external_modified text files only). */
  mergeAvailable: boolean;
  /** The text `merge` would leave (when available), so a person can check it before choosing. */
  mergedText: string | null;
  /**
   * What `merge` would change in the file as it is now, as a unified diff (`--- a/<path>` from the
   * current content to the merged text); null when no merge is available.
   */
  mergePatch: string | null;
  resolution: FileResolution | null;
}

/** A change made by a shell command (`source: 'exec'`), listed apart from the agent's own edits. */
export interface ShellChange {
  checkpointId: string;
  op: CheckpointOp;
  path: string;
  toPath: string | null;
  /** True only when the caller opted in with `includeShellChanges`. */
  included: boolean;
}

/** What `preview` found. Pass it to `apply` unchanged. */
export interface FileRewindPreview {
  sessionId: string;
  target: { messageId: string } | { turnId: string };
  includeShellChanges: boolean;
  resolutions: Record<string, FileResolution>;
  /** The checkpoints the rewind undoes, newest first (a skipped file's are not among them). */
  checkpointIds: string[];
  /** Checkpoints in range that an earlier rewind already undid (not offered again). */
  alreadyRewound: string[];
  files: PreviewFile[];
  shellChanges: ShellChange[];
  /** True when every file is safe or has a resolution, and there is something to change. */
  canApply: boolean;
  /** Why `canApply` is false, one sentence each. */
  blockers: string[];
}

/** One file an applied rewind changed. */
export interface RewoundFile {
  path: string;
  /** Content before the rewind (null: absent). Kept in the blob store. */
  fromHash: string | null;
  /** Content after the rewind (null: deleted). */
  toHash: string | null;
  fromMode: number | null;
  toMode: number | null;
  resolution: ConflictResolution | null;
}

/** What an applied file rewind did. `rewindId` names it for `redo` (the journal id). */
export interface FileRewindResult {
  /** Null when every file was already as asked and nothing was written or recorded. */
  rewindId: string | null;
  sessionId: string;
  kind: FileRewindKind;
  checkpointIds: string[];
  files: RewoundFile[];
  /** A checked rewind's files the person chose to skip: left as they were, not rewound (absent when none). */
  skipped?: string[];
}

/** An entry of a turn rollback that was not undone. */
export interface TurnRollbackError {
  checkpointId: string;
  path: string;
  code: string;
  message: string;
}

/** A turn rollback's report: `ok` only when every entry of the turn was undone. */
export interface TurnRollbackResult extends FileRewindResult {
  ok: boolean;
  errors: TurnRollbackError[];
}

/** A recorded file rewind (a `file-rewind` entry), for listing and redo. */
export interface AppliedFileRewind {
  rewindId: string;
  entryId: string;
  sessionId: string;
  action: 'rewind' | 'redo';
  kind: FileRewindKind;
  /** For a redo: the rewind it undid. */
  undoes: string | null;
  checkpointIds: string[];
  files: RewoundFile[];
  createdAt: number;
  /** A later redo undid this one. */
  redone: boolean;
}

/** Options every applying call takes. */
export interface ApplyOptions {
  /**
   * Runs just before the commit; what it returns commits in the same transaction as the rewind's
   * record (edit-and-resend returns a head move). If those writes fail, the files are put back.
   */
  onCommit?: () => JournalCommitWrites;
  /**
   * Direct forms only: which files changed since the agent wrote them may be overwritten —
   * `true` (the default here) any, a list of workspace keys only those, `false` none; any other
   * is refused with `REWIND_OVERWRITES_CHANGES` before anything is written. What is overwritten
   * is kept, so a redo brings it back.
   */
  overwriteChanged?: boolean | readonly string[];
}

/** Emitted only after the store committed (or, for `unavailable`, after the rewind failed). */
export interface FileRewindApplyEvent {
  sessionId: string;
  /** `file_only` for an applied file rewind; `unavailable` when it failed. */
  strategy: 'file_only' | 'unavailable';
  action: 'rewind' | 'redo';
  kind: FileRewindKind;
  rewindId: string | null;
  checkpointIds: string[];
  files: RewoundFile[];
  error: { code: string; message: string } | null;
}

export interface FileRewindEvents {
  'rewind-apply': FileRewindApplyEvent;
}

/** The data of a `file-rewind` entry. */
export interface FileRewindEntryData extends JsonObject {
  rewindId: string;
  action: 'rewind' | 'redo';
  kind: FileRewindKind;
  undoes: string | null;
  checkpointIds: string[];
  files: Array<{
    path: string;
    fromHash: string | null;
    toHash: string | null;
    fromMode: number | null;
    toMode: number | null;
    resolution: ConflictResolution | null;
  }>;
  // Kind `preserved` also has `restores: { rewindId, path }`: the kept-aside content it put back (see `restorePreserved`).
}
