import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applySettingsChange } from '../hook-settings.js';
import { installedHooks, planInstall, planUninstall } from './claude-settings.js';
import { HOOKED_EVENTS } from './hook-event.js';

const COMMAND = "/usr/bin/node '/opt/waypoint/bin/waypoint.js' hooks run claude --store /home/me/.waypoint/waypoint.db";

/** A person's settings: their own hooks on two of the events Waypoint uses and on one it does not, and other keys. */
const PERSONS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test:*)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard.sh' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done', timeout: 5 }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'say hi' }] }],
  },
};

describe('Claude Code settings: install, uninstall, status', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-settings-'));
    mkdirSync(join(dir, '.claude'));
    path = join(dir, '.claude', 'settings.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("adds an entry per event, keeps every hook and key of the person's, and shows the change before writing", () => {
    const original = `${JSON.stringify(PERSONS, null, 2)}\n`;
    writeFileSync(path, original);
    const change = planInstall(path, COMMAND);
    expect(readFileSync(path, 'utf8')).toBe(original);
    expect(change.changed).toBe(true);
    expect(change.diff).toContain('+            "command": "/usr/bin/node');
    applySettingsChange(change);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(written.model).toBe('opus');
    expect(written.permissions).toEqual(PERSONS.permissions);
    expect(written.hooks.PreToolUse[0]).toEqual(PERSONS.hooks.PreToolUse[0]);
    expect(written.hooks.Stop[0]).toEqual(PERSONS.hooks.Stop[0]);
    expect(written.hooks.Notification).toEqual(PERSONS.hooks.Notification);
    const installed = installedHooks(path);
    expect(installed.command).toBe(COMMAND);
    expect([...installed.events].sort()).toEqual([...HOOKED_EVENTS].sort());
  });

  it('installing twice changes nothing; a new command replaces the old entry instead of adding one', () => {
    writeFileSync(path, JSON.stringify(PERSONS));
    applySettingsChange(planInstall(path, COMMAND));
    const once = readFileSync(path, 'utf8');
    const again = planInstall(path, COMMAND);
    expect(again.changed).toBe(false);
    applySettingsChange(again);
    expect(readFileSync(path, 'utf8')).toBe(once);
    const moved = COMMAND.replace('/opt/waypoint', '/srv/waypoint');
    applySettingsChange(planInstall(path, moved));
    const hooks = JSON.parse(readFileSync(path, 'utf8')).hooks.PreToolUse.flatMap((group: { hooks: Array<{ command: string }> }) => group.hooks);
    expect(hooks.map((hook: { command: string }) => hook.command)).toEqual(['my-guard.sh', moved]);
  });

  it("uninstall removes exactly Waypoint's entries: the person's settings come back as they were", () => {
    writeFileSync(path, `${JSON.stringify(PERSONS, null, 2)}\n`);
    applySettingsChange(planInstall(path, COMMAND));
    applySettingsChange(planUninstall(path));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(PERSONS);
    expect(installedHooks(path).events).toEqual([]);
    expect(planUninstall(path).changed).toBe(false);
  });

  it('a settings file Waypoint created is removed again by uninstall', () => {
    applySettingsChange(planInstall(path, COMMAND));
    expect(existsSync(path)).toBe(true);
    applySettingsChange(planUninstall(path));
    expect(existsSync(path)).toBe(false);
  });

  it('a settings file that is not JSON is refused with CLAUDE_SETTINGS_INVALID and left byte for byte', () => {
    writeFileSync(path, '{ "hooks": [ oops');
    expect(() => planInstall(path, COMMAND)).toThrow(expect.objectContaining({ code: 'CLAUDE_SETTINGS_INVALID' }));
    expect(() => planUninstall(path)).toThrow(expect.objectContaining({ code: 'CLAUDE_SETTINGS_INVALID' }));
    writeFileSync(path, '{ "hooks": { "Stop": {} } }');
    expect(() => planInstall(path, COMMAND)).toThrow(expect.objectContaining({ code: 'CLAUDE_SETTINGS_INVALID' }));
    expect(readFileSync(path, 'utf8')).toBe('{ "hooks": { "Stop": {} } }');
  });
});
