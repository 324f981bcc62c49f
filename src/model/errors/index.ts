export { WaypointError } from './waypoint-error.js';
export { InvalidArgumentError } from './invalid-argument-error.js';
export { NotFoundError, type EntityKind } from './not-found-error.js';
export { ConflictError } from './conflict-error.js';
export { StoreError, type StoreErrorCode } from './store-error.js';
export { BlobCorruptError, CORRUPT_CONTENT_EXIT_CODE } from './blob-corrupt-error.js';
export { NameTooLongError, MAX_NAME_BYTES, MAX_PATH_BYTES } from './name-too-long-error.js';
export { UnusableDirectoryError, type UnusableDirectoryReason } from './unusable-directory-error.js';
