export { runStoreConformance } from './run-store-conformance.js';
export { expectCode, type StoreHarness, type StoreConformanceOptions } from './conformance-context.js';
