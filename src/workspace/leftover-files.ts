import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, unlinkSync, type BigIntStats, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { TEMP_FILE_PATTERN } from './atomic-write.js';
import { hasErrorCode } from './error-reason.js';
import { identityOf, sameIdentity, type FileIdentity } from './file-identity.js';
import { LINK_MODE } from './link-mode.js';
import { isInside } from './real-path.js';
import { HIDDEN_NAME_KEPT } from './temp-id.js';
import type { Workspace } from './workspace.js';
import { toWorkspacePath, type WorkspacePath } from './workspace-path.js';

/** A plain temp file named by its writer's pid (`<name>.<pid>.wp-tmp`, as the fork's work tree set-up writes). */
const PID_FORM = /^(.+)\.(\d{1,10})\.wp-tmp$/;

/**
 * What a leftover's name says: a temp file whose content never landed (`temp`), or a file that
 * held the path's content before a compare-and-replace took it aside (`parked`); the name of the
 * file it was beside (cut at 180 characters, as the writers cut it); and the writer's pid for the
 * pid form.
 */
export interface LeftoverName {
  kind: 'temp' | 'parked';
  target: string;
  pid: number | null;
}

/** The name's meaning when it is one of the hidden files Waypoint's writes make beside a file; null otherwise. */
export function parseLeftoverName(name: string): LeftoverName | null {
  const hidden = TEMP_FILE_PATTERN.exec(name);
  if (hidden) return { kind: hidden[2] === 'old' ? 'parked' : 'temp', target: hidden[1]!, pid: null };
  const plain = PID_FORM.exec(name);
  if (plain) return { kind: 'temp', target: plain[1]!, pid: Number(plain[2]) };
  return null;
}

/** A hidden file a write left beside a file of the workspace. */
export interface Leftover extends LeftoverName {
  /** Its own workspace key (`workspace:src/.a.ts.0123456789ab.wp-old`). */
  key: WorkspacePath;
  /** Its absolute path (in the real directory it was found in). */
  path: string;
  /** The real directory it is in. */
  directory: string;
  /** The key of the file it was beside (null when its name was cut and no file there matches it alone). */
  targetKey: WorkspacePath | null;
  /** The absolute path of that file (null with `targetKey`). */
  targetPath: string | null;
  /** A symbolic link (a link write's temp): its content is its target text. */
  link: boolean;
  /** Its mode as a rewind keeps it: permission bits, or `LINK_MODE | bits` for a symbolic link. */
  mode: number;
  size: number;
  /**
   * The later of its modification and status-change times (ms). A rename sets the change time, so a
   * file parked a moment ago counts as new however old its content is.
   */
  changedAtMs: number;
  /** Its identity when it was found: it is read and removed only while it is still this file. */
  identity: FileIdentity;
}

/** What {@link findLeftovers} walked and found. */
export interface LeftoverSearch {
  leftovers: Leftover[];
  /** Directories listed. */
  directories: number;
  /** Directories that could not be listed (workspace keys), so a leftover there was not seen. */
  unreadable: WorkspacePath[];
}

/**
 * Every hidden file Waypoint's writes left in the workspace's roots (see {@link parseLeftoverName}),
 * in every directory, ignored ones too (a tool may write an ignored file). Links are never followed,
 * and what the workspace excludes (`.git`, the store's own directory and files) is not entered.
 */
export function findLeftovers(workspace: Workspace): LeftoverSearch {
  const search: LeftoverSearch = { leftovers: [], directories: 0, unreadable: [] };
  const { names, dirs, protected: guarded } = workspace.exclusions;
  const skipped = [...dirs, ...(guarded ?? [])];
  const seen = new Set<string>();
  for (const root of workspace.roots) {
    const pending: string[] = [''];
    while (pending.length > 0) {
      const relative = pending.pop()!;
      const directory = relative === '' ? root.realDir : join(root.realDir, relative);
      if (seen.has(directory)) continue;
      seen.add(directory);
      let entries: Dirent[];
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch {
        search.unreadable.push(toWorkspacePath(root.name, relative));
        continue;
      }
      search.directories += 1;
      const present = entries.map((entry) => entry.name);
      for (const entry of entries) {
        const childRelative = relative === '' ? entry.name : `${relative}/${entry.name}`;
        const path = join(directory, entry.name);
        if (entry.isDirectory()) {
          if (!names.has(entry.name) && !skipped.some((skip) => isInside(skip, path))) pending.push(childRelative);
          continue;
        }
        if (!entry.isFile() && !entry.isSymbolicLink()) continue;
        const parsed = parseLeftoverName(entry.name);
        if (parsed === null || skipped.some((skip) => isInside(skip, path))) continue;
        let stats: BigIntStats;
        try {
          stats = lstatSync(path, { bigint: true });
        } catch {
          continue; // gone since it was listed
        }
        const target = targetName(parsed, present);
        const prefix = relative === '' ? '' : `${relative}/`;
        search.leftovers.push({
          ...parsed,
          key: toWorkspacePath(root.name, childRelative),
          path,
          directory,
          targetKey: target === null ? null : toWorkspacePath(root.name, `${prefix}${target}`),
          targetPath: target === null ? null : join(directory, target),
          link: stats.isSymbolicLink(),
          mode: (stats.isSymbolicLink() ? LINK_MODE : 0) | Number(stats.mode & 0o7777n),
          size: Number(stats.size),
          changedAtMs: Math.max(Number(stats.mtimeNs / 1_000_000n), Number(stats.ctimeNs / 1_000_000n)),
          identity: identityOf(stats),
        });
      }
    }
  }
  search.leftovers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return search;
}

/** The name of the file a leftover was beside: a cut name is completed when exactly one entry there starts with it. */
function targetName(parsed: LeftoverName, present: readonly string[]): string | null {
  if (parsed.pid !== null || parsed.target.length < HIDDEN_NAME_KEPT) return parsed.target;
  const matches = present.filter((name) => name.startsWith(parsed.target) && parseLeftoverName(name) === null);
  if (matches.length === 1) return matches[0]!;
  return matches.includes(parsed.target) ? parsed.target : null;
}

/** Whether the file at `path` is still the leftover found (same inode, size and times); false when gone. */
export function isSameLeftover(leftover: Leftover): boolean {
  try {
    return sameIdentity(lstatSync(leftover.path, { bigint: true }), leftover.identity);
  } catch {
    return false;
  }
}

/**
 * A leftover's bytes (a link's target text, never followed), or null when it is no longer the file
 * found — changed, replaced or gone — before or while it was read. Throws when it is there but
 * cannot be read (permissions, too large for one buffer).
 */
export function readLeftover(leftover: Leftover): Buffer | null {
  if (!isSameLeftover(leftover)) return null;
  let content: Buffer;
  try {
    content = leftover.link ? readlinkSync(leftover.path, { encoding: 'buffer' }) : readFileSync(leftover.path);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return null;
    throw error;
  }
  return isSameLeftover(leftover) && content.length === leftover.size ? content : null;
}

/**
 * Removes a leftover, only while it is still the file found and its directory is still the real
 * directory it was found in (not swapped for a link). `changed`: something else is there now, left
 * alone; `gone`: nothing is there; `failed`: it could not be removed (permissions).
 */
export function removeLeftover(leftover: Leftover): 'removed' | 'changed' | 'gone' | 'failed' {
  try {
    if (realpathSync.native(leftover.directory) !== leftover.directory) return 'changed';
  } catch {
    return 'gone';
  }
  if (!isSameLeftover(leftover)) {
    try {
      lstatSync(leftover.path);
      return 'changed';
    } catch {
      return 'gone';
    }
  }
  try {
    unlinkSync(leftover.path);
    return 'removed';
  } catch (error) {
    return hasErrorCode(error, 'ENOENT') ? 'gone' : 'failed';
  }
}
