// Claude Code through its hooks: the settings entries Waypoint installs, and the handler that
// records each hook event (sessions, turns, checkpoints, the mirrored transcript).
export { isClaudeSessionId, waypointSessionIdFor } from './claude-ids.js';
export { ClaudeHookEvent, HOOKED_EVENTS } from './hook-event.js';
export { handleClaudeHook, runClaudeHook, type ClaudeHookOptions } from './hook-handler.js';
export { hookCommand } from './hook-command.js';
export { serveHookHelper } from './hook-helper.js';
export { runHookCommand } from './hook-client.js';
export { helperReport, type HelperReport } from './helper-status.js';
export { installedHooks, planInstall, planUninstall, settingsPath } from './claude-settings.js';
