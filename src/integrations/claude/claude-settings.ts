import { homedir } from 'node:os';
import { join } from 'node:path';
import { installedHooksIn, planHooksInstall, planHooksUninstall, type HooksFileFormat, type SettingsChange } from '../hook-settings.js';
import { HOOKED_EVENTS } from './hook-event.js';

/** Claude Code's settings file as a hooks file: Waypoint's entries run `waypoint … hooks run claude`. */
const CLAUDE_SETTINGS: HooksFileFormat = {
  events: HOOKED_EVENTS,
  toolEvents: new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']),
  ours: /waypoint[^\n]*\bhooks run claude\b/,
  invalidCode: 'CLAUDE_SETTINGS_INVALID',
};

/** Where Claude Code reads hooks from: the project's `.claude/settings.json`, or the user's `~/.claude/settings.json`. */
export function settingsPath(scope: 'project' | 'user', cwd: string, home: string = homedir()): string {
  return scope === 'user' ? join(home, '.claude', 'settings.json') : join(cwd, '.claude', 'settings.json');
}

/**
 * What installing Waypoint's hooks into Claude's settings at `path` changes: one entry per hooked
 * event running `command`, every hook already there kept in its place; installing twice changes nothing.
 */
export function planInstall(path: string, command: string): SettingsChange {
  return planHooksInstall(CLAUDE_SETTINGS, path, command);
}

/** What removing Waypoint's entries from Claude's settings at `path` changes: exactly them. */
export function planUninstall(path: string): SettingsChange {
  return planHooksUninstall(CLAUDE_SETTINGS, path);
}

/** The events of `path` that run Waypoint's Claude handler, and the command they run. */
export function installedHooks(path: string): { events: string[]; command: string | null } {
  return installedHooksIn(CLAUDE_SETTINGS, path);
}
