// The rewind folder: `files/` undoes file changes (direct, cascade, turn rollback, preview/apply,
// journals and crash recovery, redo); `conversation/` moves session heads; `combined/` does both
// at once (one commit), and edit/retry of the last turn.
export * from './files/index.js';
export * from './conversation/index.js';
export * from './combined/index.js';
