// Waypoint inside agents people already run: each agent's integration in its own folder, and the
// machinery they share here (hooks files, the session lock, the per-session state, tool capture, the failure log).
export * from './claude/index.js';
export * from './codex/index.js';
export { recentHookFailures, type HookFailure } from './hook-log.js';
export type { HookAgent } from './hook-paths.js';
export { hookFilesPath, hookStoreFlags, storeUrlFile, writeStoreUrlFile } from './hook-store.js';
export { applySettingsChange, type SettingsChange, type SettingsScope } from './hook-settings.js';
