// Claude Code through its hooks: the settings entries Waypoint installs, and the handler that
// records each hook event (sessions, turns, checkpoints, the mirrored transcript).
export { isClaudeSessionId, waypointSessionIdFor } from './claude-ids.js';
export { ClaudeHookEvent, HOOKED_EVENTS } from './hook-event.js';
export { handleClaudeHook, runClaudeHook, type ClaudeHookOptions } from './hook-handler.js';
export { recentHookFailures, type HookFailure } from './hook-log.js';
export { hookCommand } from './hook-command.js';
export { serveHookHelper } from './hook-helper.js';
export { runHookCommand } from './hook-client.js';
export {
  applySettingsChange,
  installedHooks,
  planInstall,
  planUninstall,
  settingsPath,
  type SettingsChange,
  type SettingsScope,
} from './claude-settings.js';
