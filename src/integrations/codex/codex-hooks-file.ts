import { homedir } from 'node:os';
import { join } from 'node:path';
import { installedHooksIn, planHooksInstall, planHooksUninstall, type HooksFileFormat, type SettingsChange, type SettingsScope } from '../hook-settings.js';
import { hookCommand } from '../claude/hook-command.js';
import { CODEX_HOOKED_EVENTS } from './hook-event.js';

/** Codex's `hooks.json`: Waypoint's entries run `waypoint … hooks run codex`. */
const CODEX_HOOKS: HooksFileFormat = {
  events: CODEX_HOOKED_EVENTS,
  toolEvents: new Set(['PreToolUse', 'PostToolUse']),
  ours: /waypoint[^\n]*\bhooks run codex\b/,
  invalidCode: 'CODEX_HOOKS_INVALID',
};

/**
 * Where Codex reads hooks from: the project's `.codex/hooks.json` (loaded once the project is
 * trusted in Codex), or the user's `$CODEX_HOME/hooks.json` (`~/.codex/hooks.json` by default).
 */
export function codexHooksPath(scope: SettingsScope, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (scope === 'project') return join(cwd, '.codex', 'hooks.json');
  const codexHome = env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(env.HOME ?? homedir(), '.codex');
  return join(codexHome, 'hooks.json');
}

export function planCodexInstall(path: string, command: string): SettingsChange {
  return planHooksInstall(CODEX_HOOKS, path, command);
}

export function planCodexUninstall(path: string): SettingsChange {
  return planHooksUninstall(CODEX_HOOKS, path);
}

export function installedCodexHooks(path: string): { events: string[]; command: string | null } {
  return installedHooksIn(CODEX_HOOKS, path);
}

/**
 * The command Codex runs for each hooked event (through `/bin/bash -c`): the bash client handing
 * the event to the store's resident helper, with the Node client (`hooks run codex`) behind it —
 * the same command as Claude Code's but for the agent (see {@link hookCommand}).
 */
export function codexHookCommand(options: { storePath?: string; storeFlags?: readonly string[]; node?: string; bin?: string; shell?: boolean } = {}): string {
  return hookCommand({ ...options, agent: 'codex' });
}
