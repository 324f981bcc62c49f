// The rewind folder: `files/` undoes file changes (direct, cascade, turn rollback, preview/apply,
// journals and crash recovery, redo); `conversation/` moves session heads.
export * from './files/index.js';
export * from './conversation/index.js';
