import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedHooksIn, planHooksInstall, planHooksUninstall, type HooksFileFormat, type SettingsChange, type SettingsScope } from '../hook-settings.js';
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

function quote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command Codex runs for each hooked event: this Node and this package's `bin/waypoint.js` by
 * absolute path, `hooks run codex`, and the store when one was named at install (`storeFlags`: a
 * database store by the file its URL is kept in).
 */
export function codexHookCommand(options: { storePath?: string; storeFlags?: readonly string[]; node?: string; bin?: string } = {}): string {
  const node = options.node ?? process.execPath;
  const bin = options.bin ?? realpathSync(fileURLToPath(new URL('../../../bin/waypoint.js', import.meta.url)));
  return [node, bin, 'hooks', 'run', 'codex', ...(options.storeFlags ?? (options.storePath ? ['--store', options.storePath] : []))].map(quote).join(' ');
}
