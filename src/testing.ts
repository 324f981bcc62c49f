/**
 * `waypoint/testing`: what a test needs. The scripted model plays replies and tool calls in order
 * (a real `LanguageModelV3`, no network), and `runStoreConformance` is the contract every `Store`
 * backend passes, so a third party can test its own. The conformance suite registers vitest cases:
 * call it from a vitest test file (vitest is then a dependency of that project).
 *
 * @example
 * import { runStoreConformance } from 'waypoint/testing';
 * runStoreConformance({ name: 'my-store', create: async () => ({ store, reopen, cleanup }) });
 */
export { ScriptedModel, ModelScript, ScriptedStep, parseModelScript, loadModelScript } from './runtime/index.js';
export { runStoreConformance } from './store/conformance/run-store-conformance.js';
export type { StoreHarness, StoreConformanceOptions } from './store/conformance/conformance-context.js';
