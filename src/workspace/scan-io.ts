import { lstatSync, readdirSync, readFileSync, readlinkSync, type Dirent } from 'node:fs';
import { hasErrorCode } from './error-reason.js';
import { lstatAll, STAT_FAILED, STAT_FIELDS, STAT_MISSING } from './lstat-pool.js';

/** The stat fields a scan uses. */
export interface ScanStats {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  isFile(): boolean;
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
}

/**
 * The filesystem calls a scan makes, all synchronous: in a tight loop over thousands of files the
 * sync calls are several times faster than `fs.promises` on the machines we measured. Injectable
 * so tests can count reads or simulate coarse timestamps; production uses {@link nodeScanIo}.
 */
export interface ScanIo {
  readdir(path: string): Dirent[];
  lstat(path: string): ScanStats;
  readFile(path: string): Buffer;
  /** A link's target text; a Buffer keeps text that is not UTF-8 exact. */
  readlink(path: string): Buffer | string;
  /**
   * What changed on disk between scans, from a long-lived process's change tracker (absent: the
   * scan reads the whole tree). With it a scan handed the cache of a previous scan made through the
   * same source re-reads only the directories and files changed since (see `incremental-scan.ts`).
   */
  changes?: ScanChangeSource;
}

/** A change tracker's journal, as a scan reads it. */
export interface ScanChangeSource {
  /** A mark of this instant (taken as a scan starts): {@link since} lists what changed after it. */
  mark(): unknown;
  /** What changed after `mark`, or null when that cannot be told (a reset, a mark of another source): then read everything. */
  since(mark: unknown): ScanChanges | null;
}

/**
 * Absolute paths a scan must read again. Besides the changes since the mark, both lists hold
 * whatever the tracker cannot vouch for at all (a file with other hard links, a directory it could
 * not watch): those are read by every scan.
 */
export interface ScanChanges {
  /** Files and directories whose stat, listing or content may have changed (the directory holding each is read again too). */
  readonly paths: Iterable<string>;
  /** Directories below which anything may have changed (renamed, replaced, an event without a name): read again in full. */
  readonly subtrees: Iterable<string>;
}

export const nodeScanIo: ScanIo = {
  readdir: (path) => readdirSync(path, { withFileTypes: true }),
  lstat: (path) => lstatSync(path),
  readFile: (path) => readFileSync(path),
  readlink: (path) => readlinkSync(path, { encoding: 'buffer' }),
};

export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;
export const S_IFDIR = 0o040000;

/**
 * lstat of every path as a table (see {@link lstatAll}): on worker threads for large lists with
 * the default `io`, one by one through `io.lstat` when a test injects one. A failure other than
 * ENOENT is marked {@link STAT_FAILED}; the caller stats that path again to learn why.
 */
export function statTable(io: ScanIo, paths: readonly string[]): Float64Array {
  if (io.lstat === nodeScanIo.lstat) return lstatAll(paths);
  const table = new Float64Array(paths.length * STAT_FIELDS);
  for (let index = 0; index < paths.length; index++) {
    const offset = index * STAT_FIELDS;
    let stats: ScanStats;
    try {
      stats = io.lstat(paths[index]!);
    } catch (error) {
      table[offset] = hasErrorCode(error, 'ENOENT') ? STAT_MISSING : STAT_FAILED;
      continue;
    }
    table[offset] = modeOf(stats);
    table[offset + 1] = stats.size;
    table[offset + 2] = stats.mtimeMs;
    table[offset + 3] = stats.ctimeMs;
    table[offset + 4] = stats.ino;
  }
  return table;
}

/** File-type and permission bits of a stat, from its type methods (injected stats may lack type bits). */
export function modeOf(stats: ScanStats): number {
  const type = stats.isSymbolicLink() ? S_IFLNK : stats.isFile() ? S_IFREG : stats.isDirectory() ? S_IFDIR : 0;
  return type | (stats.mode & 0o7777);
}
