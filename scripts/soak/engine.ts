// The engine's internals the soak drives and inspects directly (it is not a package user: it
// needs the capture, journal and retention primitives the front door keeps internal).
export * from '../../src/model/index.js';
export * from '../../src/store/index.js';
export * from '../../src/blobs/index.js';
export * from '../../src/history/index.js';
export * from '../../src/workspace/index.js';
export * from '../../src/checkpoint/index.js';
export * from '../../src/rewind/index.js';
export * from '../../src/fork/index.js';
export * from '../../src/engine/index.js';
