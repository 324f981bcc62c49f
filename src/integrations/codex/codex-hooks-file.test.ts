import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySettingsChange } from '../hook-settings.js';
import { codexHookCommand, codexHooksPath, installedCodexHooks, planCodexInstall, planCodexUninstall } from './codex-hooks-file.js';
import { CODEX_HOOKED_EVENTS } from './hook-event.js';

const COMMAND = '/usr/bin/node /opt/waypoint/bin/waypoint.js hooks run codex --store /s/waypoint.db';

describe("Codex's hooks.json: Waypoint's entries", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-codex-hooks-'));
    path = join(dir, '.codex', 'hooks.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lives in the project, or in CODEX_HOME (else ~/.codex) for the user', () => {
    expect(codexHooksPath('project', '/p', {})).toBe('/p/.codex/hooks.json');
    expect(codexHooksPath('user', '/p', { HOME: '/h' })).toBe('/h/.codex/hooks.json');
    expect(codexHooksPath('user', '/p', { HOME: '/h', CODEX_HOME: '/c' })).toBe('/c/hooks.json');
  });

  it("installs beside the person's hooks, once, and uninstalls back to the person's file", () => {
    const persons = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }] }, other: 1 };
    mkdirSync(join(dir, '.codex'));
    writeFileSync(path, JSON.stringify(persons));
    const install = planCodexInstall(path, COMMAND);
    expect(install.changed).toBe(true);
    expect(install.diff).toContain('+');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(persons);
    applySettingsChange(install);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(written.other).toBe(1);
    expect(written.hooks.PreToolUse).toEqual([persons.hooks.PreToolUse[0], { matcher: '*', hooks: [{ type: 'command', command: COMMAND }] }]);
    expect(written.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: COMMAND }] }]);
    const installed = installedCodexHooks(path);
    expect(installed.command).toBe(COMMAND);
    expect([...installed.events].sort()).toEqual([...CODEX_HOOKED_EVENTS].sort());
    expect(planCodexInstall(path, COMMAND).changed).toBe(false);
    applySettingsChange(planCodexUninstall(path));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(persons);
  });

  it("removes the file it created when only Waypoint's entries were in it", () => {
    applySettingsChange(planCodexInstall(path, COMMAND));
    expect(existsSync(path)).toBe(true);
    applySettingsChange(planCodexUninstall(path));
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a file that is no hooks file, with a typed error, and leaves it alone', () => {
    mkdirSync(join(dir, '.codex'));
    writeFileSync(path, '{ not json');
    expect(() => planCodexInstall(path, COMMAND)).toThrow(expect.objectContaining({ code: 'CODEX_HOOKS_INVALID' }));
    expect(readFileSync(path, 'utf8')).toBe('{ not json');
  });

  it.skipIf(!existsSync('/bin/bash'))(
    "runs the bash client in front of the Node client (`hooks run codex`), and replaces an older install's Node-only command",
    () => {
      const node = '/usr/bin/node';
      // This package's own bin/: the bash client beside waypoint.js.
      const bin = join(import.meta.dirname, '..', '..', '..', 'bin', 'waypoint.js');
      const nodeOnly = `${node} ${bin} hooks run codex --store /s/waypoint.db`;
      const shell = codexHookCommand({ storePath: '/s/waypoint.db', node, bin });
      expect(shell).toBe(`/bin/bash ${join(bin, '..', 'claude-hook.bash')} ${nodeOnly}`);
      expect(codexHookCommand({ storePath: '/s/waypoint.db', node, bin, shell: false })).toBe(nodeOnly);
      applySettingsChange(planCodexInstall(path, nodeOnly));
      const upgrade = planCodexInstall(path, shell);
      expect(upgrade.changed).toBe(true);
      applySettingsChange(upgrade);
      expect(installedCodexHooks(path).command).toBe(shell);
      const written = JSON.parse(readFileSync(path, 'utf8'));
      expect(written.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: shell }] }]);
    },
  );
});
