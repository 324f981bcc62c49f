import type { Checkpoint, Effect, Entry, Session, Turn } from '../model/index.js';
import { CORRUPT_CONTENT_EXIT_CODE, WaypointError } from '../model/index.js';
import type { ImportedMessage, ImportRecordCounts } from '../store/index.js';

/** The `format` field of every export's first line. */
export const EXPORT_FORMAT = 'waypoint-export';
/** The version this code writes and reads; a newer one is refused (`EXPORT_VERSION_UNSUPPORTED`). */
export const EXPORT_VERSION = 1;

/** What an export holds, said before its records so a reader can show progress and check the end. */
export interface ExportHeader {
  t: 'header';
  format: typeof EXPORT_FORMAT;
  version: number;
  createdAt: number;
  /** The session asked for, and whether its whole family came with it. */
  sessionId: string;
  family: boolean;
  sessionIds: string[];
  counts: ImportRecordCounts & { blobs: number; blobBytes: number };
  /** Hashes the records name that the source store did not have (they are not in the export either). */
  missingBlobs: string[];
}

/**
 * One line of an export, in this order: the header, the records (sessions, messages, entries,
 * turns, checkpoints, effects), pins, blobs, and the end line with the digest of all before it.
 */
export type ExportFrame =
  | ExportHeader
  | { t: 'session'; record: Session }
  | { t: 'message'; record: ImportedMessage }
  | { t: 'entry'; record: Entry }
  | { t: 'turn'; record: Turn }
  | { t: 'checkpoint'; record: Checkpoint }
  | { t: 'effect'; record: Effect }
  | { t: 'pin'; owner: string; hashes: string[] }
  /** A blob's bytes, base64; `hash` is the sha256 of the bytes, checked on import. */
  | { t: 'blob'; hash: string; size: number; data: string }
  /** The last line: how many lines came before it and the sha256 of their bytes (newlines included). */
  | { t: 'end'; lines: number; sha256: string };

export type TransferErrorCode =
  | 'EXPORT_FILE_CORRUPT'
  | 'EXPORT_FILE_TRUNCATED'
  | 'EXPORT_VERSION_UNSUPPORTED'
  | 'EXPORT_NOT_A_FILE'
  | 'EXPORT_TARGET_EXISTS'
  | 'EXPORT_SAME_STORE'
  | 'IMPORT_SOURCE_NOT_FOUND';

const EXIT_CODES: Partial<Record<TransferErrorCode, number>> = {
  EXPORT_FILE_CORRUPT: CORRUPT_CONTENT_EXIT_CODE,
  EXPORT_FILE_TRUNCATED: CORRUPT_CONTENT_EXIT_CODE,
  EXPORT_NOT_A_FILE: 3,
  IMPORT_SOURCE_NOT_FOUND: 3,
  EXPORT_TARGET_EXISTS: 4,
};

/** An export file or target that cannot be used as given. Nothing was imported or written. */
export class TransferError extends WaypointError {
  override readonly name: string = 'TransferError';
  declare readonly code: TransferErrorCode;

  constructor(options: { code: TransferErrorCode; message: string; details?: Record<string, unknown>; cause?: unknown }) {
    super({
      ...options,
      exitCode: EXIT_CODES[options.code] ?? 2,
      httpStatus: 400,
    });
  }
}

export function corruptFile(path: string, reason: string, cause?: unknown): TransferError {
  return new TransferError({
    code: 'EXPORT_FILE_CORRUPT',
    message: `The export file ${path} is damaged (${reason}); nothing was imported. Export the session again.`,
    details: { path, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

export function truncatedFile(path: string, reason: string, cause?: unknown): TransferError {
  return new TransferError({
    code: 'EXPORT_FILE_TRUNCATED',
    message: `The export file ${path} ends early (${reason}): it was cut off while written or copied; nothing was imported. Copy or export it again.`,
    details: { path, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Progress of an export or import: records first, then blobs (counts and bytes). */
export interface TransferProgress {
  phase: 'records' | 'blobs' | 'commit';
  done: number;
  total: number;
}
