import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GitWorkTree } from './git-work-tree.js';
import { toByteString } from './wildmatch.js';

/**
 * The paths in a git index, relative to the work tree's top: what git tracks, whatever the
 * ignore rules say. Files, symlinks and entries in conflict; submodules (gitlinks) are left out.
 * Kept as git keeps them, sorted by bytes, and searched (no set is built: reading a large index
 * again after each git command stays cheap).
 */
export class TrackedPaths {
  /** @param names byte strings (one character per byte of the UTF-8 path), sorted. */
  constructor(private readonly names: readonly string[]) {}

  get size(): number {
    return this.names.length;
  }

  /**
   * Whether git tracks the file (or symlink) at this path. With `ignoreCase` (git's
   * `core.ignoreCase`) a path differing only in ASCII case counts, as it does for git.
   */
  hasFile(path: string, ignoreCase = false): boolean {
    const names = ignoreCase ? this.foldedNames() : this.names;
    const name = ignoreCase ? foldAscii(toByteString(path)) : toByteString(path);
    const at = lowerBound(names, name);
    return at < names.length && names[at] === name;
  }

  /** Whether git tracks some path below this directory (`ignoreCase` as for {@link hasFile}). */
  hasDirectory(path: string, ignoreCase = false): boolean {
    const names = ignoreCase ? this.foldedNames() : this.names;
    const prefix = `${ignoreCase ? foldAscii(toByteString(path)) : toByteString(path)}/`;
    const at = lowerBound(names, prefix);
    return at < names.length && names[at]!.startsWith(prefix);
  }

  private folded: string[] | undefined;

  private foldedNames(): readonly string[] {
    this.folded ??= this.names.map(foldAscii).sort();
    return this.folded;
  }

  /** Every tracked path, as JavaScript strings. */
  paths(): string[] {
    return this.names.filter((name) => !name.endsWith('/')).map((name) => fromByteString(name));
  }
}

function lowerBound(names: readonly string[], key: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (names[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

function foldAscii(name: string): string {
  return name.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

function fromByteString(name: string): string {
  return isAscii(name) ? name : Buffer.from(name, 'latin1').toString('utf8');
}

function isAscii(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the whole of ASCII
  return /^[\x00-\x7f]*$/.test(text);
}

interface CachedIndex {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly tracked: TrackedPaths | null;
}

const CACHE_LIMIT = 16;
const cache = new Map<string, CachedIndex>();

const GITLINK = 0o160000;

/**
 * The tracked paths of a work tree, read from its index file: parsed directly (versions 2 to 4),
 * or listed by `git ls-files -z` for an index this parser does not read (a split index), with
 * optional locks off so git writes nothing. Reused while the index file's size, times and inode
 * are unchanged (git replaces the file on every write). Null when there is no index (a repository
 * with nothing added yet tracks nothing) or it cannot be read.
 *
 * @example
 * const tracked = readTrackedPaths(findGitWorkTree('/repo')!, 'sha1')
 * tracked?.hasFile('fixtures/ignored.log') // true when force-added
 */
export function readTrackedPaths(workTree: GitWorkTree, objectFormat = 'sha1'): TrackedPaths | null {
  const indexPath = join(workTree.gitDir, 'index');
  let stats;
  try {
    stats = statSync(indexPath);
  } catch {
    cache.delete(indexPath);
    return null;
  }
  const cached = cache.get(indexPath);
  if (cached !== undefined && cached.size === stats.size && cached.mtimeMs === stats.mtimeMs && cached.ctimeMs === stats.ctimeMs && cached.ino === stats.ino) {
    return cached.tracked;
  }
  let tracked: TrackedPaths | null;
  try {
    tracked = parseIndex(readFileSync(indexPath), objectFormat === 'sha256' ? 32 : 20) ?? listWithGit(workTree);
  } catch {
    tracked = listWithGit(workTree);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(indexPath, { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, tracked });
  return tracked;
}

/** The index's paths, or null when it uses a form left to git (a split index, an unknown version). Throws when malformed. */
export function parseIndex(data: Buffer, hashSize: number): TrackedPaths | null {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not a git index');
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = data.readUInt32BE(8);
  const names: string[] = [];
  let sorted = true;
  // Names are sliced from one byte string of the whole file (cheap substrings).
  const bytes = data.toString('latin1');
  let at = 12;
  let previous = '';
  const end = data.length - hashSize;
  for (let entry = 0; entry < count; entry++) {
    const start = at;
    const mode = data.readUInt32BE(start + 24);
    const flags = data.readUInt16BE(start + 40 + hashSize);
    at = start + 42 + hashSize;
    if (version >= 3 && (flags & 0x4000) !== 0) at += 2;
    let name: string;
    if (version === 4) {
      let byte = data[at++]!;
      let strip = byte & 0x7f;
      while ((byte & 0x80) !== 0) {
        byte = data[at++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const nul = data.indexOf(0, at);
      if (nul === -1 || strip > previous.length) throw new Error('malformed index entry');
      name = previous.slice(0, previous.length - strip) + bytes.slice(at, nul);
      at = nul + 1;
    } else {
      const length = flags & 0xfff;
      const nul = length < 0xfff ? at + length : data.indexOf(0, at);
      if (nul === -1 || data[nul] !== 0) throw new Error('malformed index entry');
      name = bytes.slice(at, nul);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      at = start + ((nul - start + 8) & ~7);
    }
    if (at > end) throw new Error('truncated index');
    if (name < previous) sorted = false;
    previous = name;
    // Submodules are left out; a sparse index's directory entries (`dir/`) stay, and mean
    // everything below them is tracked.
    if ((mode & 0o170000) !== GITLINK) names.push(name);
  }
  // Extensions: a split index keeps most entries in another file, which git reads for us.
  while (at + 8 <= end) {
    const signature = data.toString('latin1', at, at + 4);
    if (signature === 'link') return null;
    at += 8 + data.readUInt32BE(at + 4);
  }
  if (!sorted) names.sort();
  return new TrackedPaths(names);
}

// Variables that would point git at another repository, index or work tree than the one given.
const REDIRECTING_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
];

/** `git ls-files -z` in the work tree, read-only; null when git is missing or fails. */
function listWithGit(workTree: GitWorkTree): TrackedPaths | null {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  for (const name of REDIRECTING_VARIABLES) delete env[name];
  const result = spawnSync('git', ['--no-optional-locks', '-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--stage'], {
    cwd: workTree.top,
    env,
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (result.status !== 0 || result.stdout === null) return null;
  const names: string[] = [];
  for (const line of result.stdout.toString('latin1').split('\0')) {
    // `<mode> <object> <stage>\t<path>`
    const tab = line.indexOf('\t');
    if (tab === -1 || line.startsWith('160000 ')) continue;
    names.push(line.slice(tab + 1));
  }
  return new TrackedPaths(names.sort());
}
