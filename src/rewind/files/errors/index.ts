export { RewindConflictError, type RewindConflictFile } from './rewind-conflict-error.js';
export { SnapshotMissingError, type MissingSnapshot } from './snapshot-missing-error.js';
export { NothingToRewindError } from './nothing-to-rewind-error.js';
export { RewindApplyFailedError } from './rewind-apply-failed-error.js';
export { RewindUnrecoverableError, type UnrestoredFile } from './rewind-unrecoverable-error.js';
export { RewindNotFoundError } from './rewind-not-found-error.js';
export { WorkspaceBusyError } from './workspace-busy-error.js';
export { RewindOverwritesChangesError, type ChangedFile } from './rewind-overwrites-changes-error.js';
