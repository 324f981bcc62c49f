import type { JsonObject } from '../model/index.js';
import type { NewCheckpoint } from './store.js';

/**
 * A file a write in flight is about to change, as recovery needs it: where it is on disk and what
 * it holds before and after (`null`: absent). Recovery compares what the file holds after a crash
 * with these to tell whether the change happened.
 */
export interface WriteIntentFile {
  /** Workspace key (`workspace:src/a.ts`). */
  path: string;
  /** Absolute path of the entry on disk (a symlink is not followed: its content is its target text). */
  entryPath: string;
  beforeHash: string | null;
  afterHash: string | null;
  /** The temp file the write puts its new content in before moving it into place: recovery removes it. */
  tempPath?: string;
}

/**
 * A write in flight: blobs being stored (or reused) for a row that does not exist yet, and, for a
 * write that changes files, the checkpoints it will add. Recorded *before* the blobs are stored
 * (so GC cannot sweep them between their storing and the row naming them) and before any file
 * changes (so a crash in between is recovered: see `Store.recordWriteIntent`).
 */
export interface NewWriteIntent {
  id?: string;
  sessionId?: string | null;
  /** Blobs the write stores or reuses, delta bases included: GC roots while the intent exists. */
  hashes: readonly string[];
  /** The rows the write will add once its files changed (their patches may be left out). */
  checkpoints?: NewCheckpoint[];
  /** The files it changes (empty for a write that only stores blobs). */
  files?: WriteIntentFile[];
  /**
   * A shell command's capture in flight: what its before-scan saw and whose call it is, so that a
   * capture killed with the command running is recorded by the session's next capture. Such an
   * intent stays a GC root until that happens (it is not a plain pin that expires with its process).
   */
  exec?: JsonObject | null;
}

export interface WriteIntent {
  id: string;
  sessionId: string | null;
  /** The process that recorded it (pid and host): an intent is only recovered once it is gone. */
  pid: number;
  host: string;
  hashes: string[];
  checkpoints: NewCheckpoint[];
  files: WriteIntentFile[];
  exec: JsonObject | null;
  createdAt: number;
}

/** What `Store.sweepBlobs` removed, and what it found referenced again and kept. */
export interface BlobSweepResult {
  deleted: string[];
  /** Candidates a record, a write in flight or a kept delta chain now refers to: not deleted. */
  spared: string[];
  freedBytes: number;
}
