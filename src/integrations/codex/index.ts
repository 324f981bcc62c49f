// Codex CLI through its hooks: the hooks.json entries Waypoint installs, and the handler that
// records each hook event (sessions, turns, apply_patch checkpoints, scans around shell commands).
export { patchedFiles, patchedPaths, type PatchedFile } from './apply-patch.js';
export { codexHookCommand, codexHooksPath, installedCodexHooks, planCodexInstall, planCodexUninstall } from './codex-hooks-file.js';
export { CODEX_HOOKED_EVENTS, CodexHookEvent } from './hook-event.js';
export { codexCoverage, handleCodexHook, runCodexHook, type CodexHookOptions } from './hook-handler.js';
export { cutRollout, forkCodexConversation, type CodexConversationFork } from './conversation-fork.js';
