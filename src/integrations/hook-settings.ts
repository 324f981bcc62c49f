import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { WaypointError } from '../model/index.js';

/** Where an agent reads hooks from: the project's file, or the user's. */
export type SettingsScope = 'project' | 'user';

/**
 * An agent's hooks file, in the shape Claude Code and Codex share: a `hooks` table of event name →
 * groups (`matcher`, `hooks: [{ type: 'command', command }]`), beside the person's other settings.
 */
export interface HooksFileFormat {
  /** The events Waypoint's entries subscribe to. */
  events: readonly string[];
  /** Events whose hook groups take a tool matcher (Waypoint's match every tool: `*`). */
  toolEvents: ReadonlySet<string>;
  /** How Waypoint's own entries are told from a person's: the command runs `waypoint … hooks run <agent>`. */
  ours: RegExp;
  /** The code of the error a file that is no hooks file gets. */
  invalidCode: string;
  /** Fields every entry of Waypoint's carries besides `type` and `command` (a timeout). */
  entryFields?: Record<string, unknown>;
}

interface HookCommand {
  type?: string;
  command?: string;
  [key: string]: unknown;
}
interface HookGroup {
  matcher?: string;
  hooks?: HookCommand[];
  [key: string]: unknown;
}
type Settings = Record<string, unknown> & { hooks?: Record<string, HookGroup[]> };

/** A change to a settings file, computed before anything is written. */
export interface SettingsChange {
  path: string;
  /** False when the file already is as asked (install twice, uninstall with nothing installed). */
  changed: boolean;
  /** A unified diff of the file's text, empty when unchanged. */
  diff: string;
  /** The new text (null: the file is removed, because only Waypoint's entries were in it). */
  next: string | null;
  events: string[];
}

/**
 * What installing Waypoint's hooks into `path` changes: one entry per hooked event running
 * `command`, every hook already there kept in its place. An entry of Waypoint's with another
 * command (an older install) is replaced, so installing twice changes nothing.
 */
export function planHooksInstall(format: HooksFileFormat, path: string, command: string): SettingsChange {
  const { text, settings } = readSettings(format, path);
  const hooks = { ...(settings.hooks ?? {}) };
  for (const event of format.events) {
    if ((hooks[event] ?? []).some((group) => (group.hooks ?? []).some((hook) => hook.command === command))) continue;
    const groups = (hooks[event] ?? []).map((group) => ({ ...group, hooks: (group.hooks ?? []).filter((hook) => !isOurs(format, hook)) }));
    const kept = groups.filter((group, index) => group.hooks.length > 0 || (hooks[event]![index]!.hooks ?? []).length === 0);
    const ours: HookGroup = { ...(format.toolEvents.has(event) ? { matcher: '*' } : {}), hooks: [{ type: 'command', command, ...format.entryFields }] };
    hooks[event] = [...kept, ours];
  }
  return change(path, text, { ...settings, hooks });
}

/** What removing Waypoint's entries from `path` changes: exactly them; groups and events they alone filled go too. */
export function planHooksUninstall(format: HooksFileFormat, path: string): SettingsChange {
  const { text, settings } = readSettings(format, path);
  if (!settings.hooks) return change(path, text, settings);
  const hooks: Record<string, HookGroup[]> = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    const remaining = groups.flatMap((group) => {
      const before = group.hooks ?? [];
      const after = before.filter((hook) => !isOurs(format, hook));
      return after.length === 0 && before.length > 0 ? [] : [{ ...group, hooks: after }];
    });
    if (remaining.length > 0 || groups.length === 0) hooks[event] = remaining;
  }
  const next: Settings = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return change(path, text, next);
}

/** The events of `path` that run Waypoint's handler, and the command they run. */
export function installedHooksIn(format: HooksFileFormat, path: string): { events: string[]; command: string | null } {
  const { settings } = readSettings(format, path);
  const events: string[] = [];
  let command: string | null = null;
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    for (const hook of groups.flatMap((group) => group.hooks ?? [])) {
      if (!isOurs(format, hook)) continue;
      if (!events.includes(event)) events.push(event);
      command ??= hook.command ?? null;
    }
  }
  return { events, command };
}

/** Writes a planned change (temp file and rename); a file left with nothing in it is removed. */
export function applySettingsChange(change: SettingsChange): void {
  if (!change.changed) return;
  if (change.next === null) {
    rmSync(change.path, { force: true });
    return;
  }
  mkdirSync(dirname(change.path), { recursive: true });
  const temp = `${change.path}.waypoint-${process.pid}.tmp`;
  writeFileSync(temp, change.next);
  renameSync(temp, change.path);
}

function isOurs(format: HooksFileFormat, hook: HookCommand): boolean {
  return typeof hook.command === 'string' && format.ours.test(hook.command);
}

function change(path: string, text: string | null, settings: Settings): SettingsChange {
  const empty = Object.keys(settings).length === 0;
  const next = empty && text !== null ? null : `${JSON.stringify(settings, null, 2)}\n`;
  const unchanged = next === null ? text === null : text !== null && sameJson(text, settings);
  const events = Object.keys(settings.hooks ?? {});
  if (unchanged || (next === null && text === null)) return { path, changed: false, diff: '', next: text, events };
  return { path, changed: true, diff: createTwoFilesPatch(path, path, text ?? '', next ?? '', 'now', next === null ? 'removed' : 'after'), next, events };
}

function sameJson(text: string, settings: Settings): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(settings);
  } catch {
    return false;
  }
}

function readSettings(format: HooksFileFormat, path: string): { text: string | null; settings: Settings } {
  if (!existsSync(path)) return { text: null, settings: {} };
  const text = readFileSync(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new WaypointError({
      code: format.invalidCode,
      message: `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it first, Waypoint leaves it as it is.`,
      details: { path },
    });
  }
  const hooks = (parsed as Settings | null)?.hooks;
  const hooksOk = hooks === undefined || (typeof hooks === 'object' && hooks !== null && Object.values(hooks).every(Array.isArray));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !hooksOk) {
    throw new WaypointError({
      code: format.invalidCode,
      message: `${path} does not hold a settings object with a "hooks" table of arrays; fix it first, Waypoint leaves it as it is.`,
      details: { path },
    });
  }
  return { text, settings: parsed as Settings };
}
