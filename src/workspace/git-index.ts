import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GitWorkTree } from './git-work-tree.js';

/**
 * The paths in a git index, relative to the work tree's top: what git tracks, whatever the
 * ignore rules say.
 */
export interface TrackedPaths {
  /** Files, symlinks and entries in conflict. Submodules (gitlinks) are not listed. */
  readonly files: ReadonlySet<string>;
  /** Every directory that holds a tracked path at some depth (`'a'`, `'a/b'`; never `''`). */
  readonly directories: ReadonlySet<string>;
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
const DIRECTORY = 0o040000;

/**
 * The tracked paths of a work tree, read from its index file: parsed directly (versions 2 to 4),
 * or listed by `git ls-files -z` for an index this parser does not read (a split index), with
 * optional locks off so git writes nothing. Reused while the index file's size, times and inode
 * are unchanged (git replaces the file on every write). Null when there is no index (a repository
 * with nothing added yet tracks nothing) or it cannot be read.
 *
 * @example
 * const tracked = readTrackedPaths(findGitWorkTree('/repo')!, 'sha1')
 * tracked?.files.has('fixtures/ignored.log') // true when force-added
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
  const files = new Set<string>();
  const directories = new Set<string>();
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  const end = data.length - hashSize;
  for (let entry = 0; entry < count; entry++) {
    const start = at;
    const mode = data.readUInt32BE(start + 24);
    const flags = data.readUInt16BE(start + 40 + hashSize);
    at = start + 42 + hashSize;
    if (version >= 3 && (flags & 0x4000) !== 0) at += 2;
    let name: Buffer;
    if (version === 4) {
      let byte = data[at++]!;
      let strip = byte & 0x7f;
      while ((byte & 0x80) !== 0) {
        byte = data[at++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const nul = data.indexOf(0, at);
      if (nul === -1 || strip > previous.length) throw new Error('malformed index entry');
      name = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(at, nul)]);
      at = nul + 1;
    } else {
      const nul = data.indexOf(0, at);
      if (nul === -1) throw new Error('malformed index entry');
      name = data.subarray(at, nul);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      at = start + ((nul - start + 8) & ~7);
    }
    if (at > end) throw new Error('truncated index');
    previous = name;
    const type = mode & 0o170000;
    if (type === GITLINK) continue;
    let path = name.toString('utf8');
    if (type === DIRECTORY) {
      // A sparse index's directory entry (`dir/`): everything below it is tracked.
      path = path.endsWith('/') ? path.slice(0, -1) : path;
      if (path !== '') directories.add(path);
    } else files.add(path);
    addAncestors(path, directories);
  }
  // Extensions: a split index keeps most entries in another file, which git reads for us.
  while (at + 8 <= end) {
    const signature = data.toString('latin1', at, at + 4);
    if (signature === 'link') return null;
    at += 8 + data.readUInt32BE(at + 4);
  }
  return { files, directories };
}

function addAncestors(path: string, directories: Set<string>): void {
  let slash = path.lastIndexOf('/');
  while (slash > 0) {
    const directory = path.slice(0, slash);
    if (directories.has(directory)) return;
    directories.add(directory);
    slash = path.lastIndexOf('/', slash - 1);
  }
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
  const files = new Set<string>();
  const directories = new Set<string>();
  for (const line of result.stdout.toString('utf8').split('\0')) {
    // `<mode> <object> <stage>\t<path>`
    const tab = line.indexOf('\t');
    if (tab === -1) continue;
    if (line.startsWith('160000 ')) continue;
    const path = line.slice(tab + 1);
    files.add(path);
    addAncestors(path, directories);
  }
  return { files, directories };
}
