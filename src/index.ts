/**
 * Waypoint: checkpoints, rewind and fork for AI agent sessions. The engine as a library; the
 * `waypoint` command is a thin shell over it. Each folder's barrel names what it exports.
 */
export * from './model/index.js';
export * from './store/index.js';
export * from './history/index.js';
export * from './blobs/index.js';
export * from './workspace/index.js';
export * from './checkpoint/index.js';
export * from './rewind/index.js';
export * from './fork/index.js';
export * from './engine/index.js';
