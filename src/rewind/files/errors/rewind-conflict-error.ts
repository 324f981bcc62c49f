import { ConflictError, CORRUPT_CONTENT_EXIT_CODE } from '../../../model/index.js';

/** One file that blocks a rewind, as a person would need to see it. */
export interface RewindConflictFile {
  path: string;
  status: string;
  reason: string;
}

/**
 * Files changed since the rewind was previewed, or files a preview marked unsafe with no chosen
 * resolution. Nothing was written; preview again, and choose `merge` or `force` per file to go on.
 *
 * @example
 * if (WaypointError.is(error, 'REWIND_CONFLICT')) console.error((error as RewindConflictError).files);
 */
export class RewindConflictError extends ConflictError {
  override readonly name = 'RewindConflictError';
  readonly files: readonly RewindConflictFile[];
  /**
   * Saves the refused apply (or its rollback) found on a path in the instant it compared it and
   * could not put back, because someone wrote the path again meanwhile: each is kept in the blob
   * store (`hash`), listed by `rewind status`, and can be put back with `restorePreserved`.
   */
  readonly preserved: readonly { path: string; hash: string }[];

  constructor(options: { files: RewindConflictFile[]; hint?: string; cause?: unknown; preserved?: Array<{ path: string; hash: string }> }) {
    const listed = options.files
      .slice(0, 5)
      .map((file) => `${file.path} (${file.status}: ${file.reason})`)
      .join('; ');
    const more = options.files.length > 5 ? ` and ${options.files.length - 5} more` : '';
    const preserved = options.preserved ?? [];
    const kept =
      preserved.length === 0
        ? ''
        : ` Kept aside: ${preserved.map((item) => `${item.path} (a save found there while it was being compared, replaced by a later write at that instant; kept as ${item.hash.slice(0, 12)})`).join('; ')}; see the session's rewind status to restore it.`;
    super({
      code: 'REWIND_CONFLICT',
      message:
        `Cannot rewind files: ${listed}${more}. Nothing was changed.${kept} ` +
        (options.hint ??
          'Preview again to see the current state, then resolve each file with "merge" (keep later edits) or "force" (overwrite; the current content is kept and can be restored with a redo).'),
      details: { files: options.files, ...(preserved.length > 0 ? { preserved } : {}) },
      cause: options.cause,
      // A file whose saved content is corrupt cannot be resolved by retrying: the store needs repair.
      ...(options.files.some((file) => file.status === 'checkpoint_unreadable') ? { exitCode: CORRUPT_CONTENT_EXIT_CODE } : {}),
    });
    this.files = Object.freeze([...options.files]);
    this.preserved = Object.freeze([...preserved]);
  }
}
