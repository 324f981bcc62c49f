export * from './errors/index.js';
export * from './types/index.js';
export { newId, isId, idTime, ID_PREFIXES, type IdKind } from './ids.js';
export { EventBus } from './events.js';
export { hashContent } from './hash-content.js';
export { parseInput } from './parse-input.js';
export { callable, bytes, withMethods, count } from './input-shapes.js';
export { hostId } from './host-id.js';
export { packagePath, packageRoot } from './package-root.js';
