import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { GitWorkTree } from './git-work-tree.js';

/** The git settings a scan needs, as git would resolve them for one work tree. */
export interface GitIgnoreSettings {
  /** The global ignore file: `core.excludesFile`, or `$XDG_CONFIG_HOME/git/ignore` when unset. */
  readonly excludesFile: string | null;
  /** `core.ignoreCase` (false unless set, as on Linux). */
  readonly ignoreCase: boolean;
  /** `extensions.objectFormat`: `sha256` repositories have 32-byte object ids in their index. */
  readonly objectFormat: string;
}

const MAX_INCLUDE_DEPTH = 10;

/**
 * Reads the settings from git's configuration files in git's order — system (`/etc/gitconfig`,
 * unless `GIT_CONFIG_NOSYSTEM`), global (`GIT_CONFIG_GLOBAL`, else `$XDG_CONFIG_HOME/git/config`
 * then `~/.gitconfig`), the repository's `config`, then `config.worktree` when enabled — the last
 * value winning, following `include.path` (conditional `includeIf` sections are not followed).
 * Runs no git. Missing or unreadable files count as empty.
 *
 * @example
 * readGitIgnoreSettings(findGitWorkTree('/repo')!).excludesFile // '/home/me/.config/git/ignore'
 */
export function readGitIgnoreSettings(workTree: GitWorkTree, env: NodeJS.ProcessEnv = process.env): GitIgnoreSettings {
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(home, '.config');
  const values = new Map<string, string>();
  const files: string[] = [];
  if (!isTrue(env.GIT_CONFIG_NOSYSTEM)) files.push(env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig');
  if (env.GIT_CONFIG_GLOBAL !== undefined) files.push(env.GIT_CONFIG_GLOBAL);
  else files.push(join(xdg, 'git', 'config'), join(home, '.gitconfig'));
  files.push(join(workTree.commonDir, 'config'));
  for (const file of files) if (file !== '') readConfigFile(file, values, home, 0);
  if (isTrue(values.get('extensions.worktreeconfig'))) readConfigFile(join(workTree.gitDir, 'config.worktree'), values, home, 0);
  const configured = values.get('core.excludesfile');
  let excludesFile: string | null;
  if (configured === undefined) excludesFile = join(xdg, 'git', 'ignore');
  else if (configured === '') excludesFile = null;
  else {
    const expanded = expandHome(configured, home);
    excludesFile = isAbsolute(expanded) ? expanded : resolve(workTree.top, expanded);
  }
  return {
    excludesFile,
    ignoreCase: isTrue(values.get('core.ignorecase')),
    objectFormat: (values.get('extensions.objectformat') ?? 'sha1').toLowerCase(),
  };
}

function expandHome(path: string, home: string): string {
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

function isTrue(value: string | undefined): boolean {
  if (value === undefined) return false;
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === 'yes' || lower === 'on') return true;
  const number = Number(lower);
  return lower !== '' && Number.isInteger(number) && number !== 0;
}

/** Adds `section.key` → value pairs of one file (later ones replace earlier ones), keys lower-cased. */
function readConfigFile(path: string, values: Map<string, string>, home: string, depth: number): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  for (const [key, value] of parseConfig(text)) {
    if (key === 'include.path' && depth < MAX_INCLUDE_DEPTH) {
      const target = expandHome(value, home);
      readConfigFile(isAbsolute(target) ? target : resolve(dirname(path), target), values, home, depth + 1);
    } else values.set(key, value);
  }
}

/**
 * The entries of a git config file in order: `section.key` or `section.subsection.key` (section
 * and key lower-cased, subsection as written) with the value unquoted and unescaped; a key with
 * no `=` is `'true'`. Malformed lines are skipped.
 */
export function parseConfig(text: string): [string, string][] {
  const entries: [string, string][] = [];
  let section = '';
  let at = 0;
  const length = text.length;
  while (at < length) {
    // Skip blank space at the start of a line.
    while (at < length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r' || text[at] === '\n')) at++;
    if (at >= length) break;
    const c = text[at];
    if (c === '#' || c === ';') {
      at = endOfLine(text, at);
      continue;
    }
    if (c === '[') {
      const close = text.indexOf(']', at);
      const lineEnd = endOfLine(text, at);
      if (close === -1 || close > lineEnd) {
        at = lineEnd;
        continue;
      }
      section = parseSectionHeader(text.slice(at + 1, close));
      at = close + 1;
      continue;
    }
    const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(at, Math.min(length, at + 256)));
    if (name === null || section === '') {
      at = endOfLine(text, at);
      continue;
    }
    at += name[0].length;
    while (at < length && (text[at] === ' ' || text[at] === '\t')) at++;
    const key = `${section}.${name[0].toLowerCase()}`;
    if (text[at] !== '=') {
      entries.push([key, 'true']);
      at = endOfLine(text, at);
      continue;
    }
    const parsed = parseValue(text, at + 1);
    entries.push([key, parsed.value]);
    at = parsed.end;
  }
  return entries;
}

function endOfLine(text: string, at: number): number {
  const newline = text.indexOf('\n', at);
  return newline === -1 ? text.length : newline + 1;
}

function parseSectionHeader(header: string): string {
  const quoted = /^\s*([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"\s*$/.exec(header);
  if (quoted !== null) return `${quoted[1]!.toLowerCase()}.${quoted[2]!.replace(/\\(.)/g, '$1')}`;
  const plain = header.trim();
  if (!/^[A-Za-z0-9.-]+$/.test(plain)) return '';
  // `[section.sub]` is the old spelling of `[section "sub"]`, its subsection lower-cased.
  return plain.toLowerCase();
}

function parseValue(text: string, start: number): { value: string; end: number } {
  let value = '';
  let quoted = false;
  let pendingSpace = '';
  let at = start;
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++;
  for (; at < text.length; at++) {
    const c = text[at]!;
    if (c === '\n') return { value, end: at + 1 };
    if (c === '\r' && text[at + 1] === '\n') continue;
    if (!quoted && (c === '#' || c === ';')) return { value, end: endOfLine(text, at) };
    if (!quoted && (c === ' ' || c === '\t')) {
      pendingSpace += c;
      continue;
    }
    value += pendingSpace;
    pendingSpace = '';
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\') {
      const next = text[++at];
      if (next === '\n') continue;
      if (next === '\r' && text[at + 1] === '\n') {
        at++;
        continue;
      }
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : (next ?? '');
      continue;
    }
    value += c;
  }
  return { value, end: at };
}
