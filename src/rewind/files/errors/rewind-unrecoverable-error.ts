import { WaypointError } from '../../../model/index.js';

/** A file that could not be put back to its content before the rewind. */
export interface UnrestoredFile {
  path: string;
  expectedHash: string | null;
  reason: string;
}

/**
 * A rewind failed and putting the files back failed too. The journal stays pending, so the next
 * `recoverJournals` (run when a store is opened) tries again; the listed files need attention. Their
 * content before the rewind is in the blob store under `expectedHash`, unless that is what is
 * missing: then `resolvePendingJournal` gives the journal up, so rewinds run again.
 */
export class RewindUnrecoverableError extends WaypointError {
  override readonly name = 'RewindUnrecoverableError';
  readonly files: readonly UnrestoredFile[];

  constructor(options: { journalId: string; files: UnrestoredFile[]; cause?: unknown }) {
    super({
      code: 'REWIND_UNRECOVERABLE',
      message:
        `Rewinding files failed and these files could not be put back: ${options.files.map((file) => `${file.path} (${file.reason})`).join('; ')}. ` +
        `Journal ${options.journalId} stays pending, and rewinds of this workspace refuse until it is resolved: fix the cause (permissions, disk space) and reopen the store to recover, ` +
        `or, when the content before is gone from the store, give the journal up with resolvePendingJournal (files that can be put back are, the others stay as they are).`,
      details: { journalId: options.journalId, files: options.files },
      exitCode: 7,
      httpStatus: 500,
      cause: options.cause,
    });
    this.files = Object.freeze([...options.files]);
  }
}
