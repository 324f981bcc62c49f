import { WaypointError } from '../../model/index.js';
import { lstatSync, type BigIntStats } from 'node:fs';
import {
  isLinkMode,
  LINK_MODE,
  readFileState,
  writtenStamps,
  type EntryStat,
  type KnownFile,
  type ResolvedPath,
  type Workspace,
} from '../../workspace/index.js';

/**
 * A path's content as the rewind sees it: absent, a regular file's bytes and permission bits, or a
 * symbolic link's target text with `LINK_MODE | bits` as its mode (the mode is the kind marker,
 * as in checkpoints; a null mode is a file's).
 */
export interface ContentState {
  exists: boolean;
  hash: string | null;
  content: Buffer | null;
  mode: number | null;
  /**
   * A large file's identity and times taken just before it was read, when they were old enough
   * that a write since must change them, or those of a file this process wrote (then known by its
   * hash alone, `content` null): its compare-and-replace need not read it again (see `replaceIf`'s
   * `known`).
   */
  known?: KnownFile | undefined;
}

/** Files from this size on are worth recognising by their stat rather than reading and hashing again. */
const KNOWN_FROM_BYTES = 256 * 1024;
/**
 * How much older than the read a file's times must be to be trusted: more than a file system's
 * clock tick, so a write after the read always stamps a later time.
 */
const SETTLED_NS = 100_000_000n;

/**
 * Whether `state` is the content a record names: the same hash and, for an existing entry, the
 * same kind (a link and a file holding the same text are different things).
 */
export function holdsVersion(state: Pick<ContentState, 'exists' | 'hash' | 'mode'>, hash: string | null, mode: number | null): boolean {
  if (state.hash !== hash || state.exists !== (hash !== null)) return false;
  return !state.exists || isLinkMode(state.mode) === isLinkMode(mode);
}

export const ABSENT: ContentState = Object.freeze({ exists: false, hash: null, content: null, mode: null });

/** Reading a path for a rewind: its state, or why it cannot be used. */
export type DiskRead =
  | { ok: true; resolved: ResolvedPath; state: ContentState }
  /** `directory`: a directory is at the path (a rewind may replace it with a file, if it empties it). */
  | { ok: false; resolved: ResolvedPath | null; reason: string; directory?: true };

/**
 * A regular file's stat, taken before its read, when its modification and change times are older
 * than now by more than {@link SETTLED_NS} and finer than whole seconds (a file system that stamps
 * whole seconds could stamp a later write with the same time); else null.
 */
function settledStat(path: string): Omit<KnownFile, 'content'> | null {
  const now = BigInt(Date.now()) * 1_000_000n;
  let stats: BigIntStats;
  try {
    stats = lstatSync(path, { bigint: true });
  } catch {
    return null;
  }
  const settled = (ns: bigint) => ns < now - SETTLED_NS && ns % 1_000_000_000n !== 0n;
  if (!stats.isFile() || !settled(stats.mtimeNs) || !settled(stats.ctimeNs)) return null;
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

/** A workspace key resolved as {@link readDisk} resolves it (lexically, the entry's lstat taken on the way). */
export type ResolvedEntry = { resolved: ResolvedPath; entry: EntryStat };

/** Resolves `path` as {@link readDisk} does; throws what resolving throws. */
export function resolveEntry(workspace: Workspace, path: string): ResolvedEntry {
  return workspace.resolveKeyEntry(path, { followLink: false });
}

/**
 * Reads the current content of a workspace key: absent, a regular file, or a symbolic link (the
 * link itself, never followed: where it points, inside the root or not, is only its text). A
 * directory at the path, or a path whose parent directories no longer resolve inside its root, is
 * reported with a reason instead. The resolved path names the entry, so a rewind replaces a link
 * rather than writing through it. `resolving`: the key resolved a moment ago by {@link resolveEntry}
 * (its lstat is then the one the read trusts).
 *
 * `expected`: the content the caller expects there. A file a rewind of this process wrote with
 * exactly that content, provably untouched since (see `writtenStamps`), is not read: its state
 * then has the hash and no content (the store holds those bytes: whoever overwrites the file
 * keeps them, or makes sure the store still has them).
 */
export function readDisk(workspace: Workspace, path: string, resolving?: ResolvedEntry, expected?: string | null): DiskRead {
  let resolved: ResolvedPath;
  let entry: EntryStat;
  try {
    ({ resolved, entry } = resolving ?? resolveEntry(workspace, path));
  } catch (error) {
    if (WaypointError.is(error)) return { ok: false, resolved: null, reason: error.message };
    throw error;
  }
  if (expected && entry?.isFile()) {
    const written = writtenStamps.holding(resolved.entryPath, expected, entry);
    if (written) {
      const { dev, ino, size, mtimeNs, ctimeNs, hash, mode, durable } = written;
      return { ok: true, resolved, state: { exists: true, hash, content: null, mode, known: { dev, ino, size, mtimeNs, ctimeNs, hash, durable } } };
    }
  }
  try {
    const stamp = entry?.isFile() && entry.size >= KNOWN_FROM_BYTES ? settledStat(resolved.entryPath) : null;
    // The lstat taken while resolving serves the read too: one per path, not two.
    const state = readFileState(resolved, { withContent: true, entry });
    if (!state.exists) return { ok: true, resolved, state: ABSENT };
    if (state.kind === 'dir') return { ok: false, resolved, reason: 'it is now a directory; only files and symbolic links are rewound', directory: true };
    const mode = state.kind === 'symlink' ? LINK_MODE | state.mode : state.mode;
    const content = state.content ?? null;
    // The hash was computed from these very bytes: a compare-and-replace that takes the same file need not hash them again.
    const known =
      stamp && state.kind === 'file' && content !== null && BigInt(content.length) === stamp.size
        ? { ...stamp, content, ...(state.hash === null ? {} : { hash: state.hash }) }
        : undefined;
    return { ok: true, resolved, state: { exists: true, hash: state.hash, content, mode, ...(known ? { known } : {}) } };
  } catch (error) {
    if (WaypointError.is(error)) return { ok: false, resolved, reason: error.message };
    throw error;
  }
}
