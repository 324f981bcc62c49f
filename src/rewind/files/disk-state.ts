import { WaypointError } from '../../model/index.js';
import { isLinkMode, LINK_MODE, readFileState, type EntryStat, type ResolvedPath, type Workspace } from '../../workspace/index.js';

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
}

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
 * Reads the current content of a workspace key: absent, a regular file, or a symbolic link (the
 * link itself, never followed: where it points, inside the root or not, is only its text). A
 * directory at the path, or a path whose parent directories no longer resolve inside its root, is
 * reported with a reason instead. The resolved path names the entry, so a rewind replaces a link
 * rather than writing through it.
 */
export function readDisk(workspace: Workspace, path: string): DiskRead {
  let resolved: ResolvedPath;
  let entry: EntryStat;
  try {
    ({ resolved, entry } = workspace.resolveKeyEntry(path, { followLink: false }));
  } catch (error) {
    if (WaypointError.is(error)) return { ok: false, resolved: null, reason: error.message };
    throw error;
  }
  try {
    // The lstat taken while resolving serves the read too: one per path, not two.
    const state = readFileState(resolved, { withContent: true, entry });
    if (!state.exists) return { ok: true, resolved, state: ABSENT };
    if (state.kind === 'dir') return { ok: false, resolved, reason: 'it is now a directory; only files and symbolic links are rewound', directory: true };
    const mode = state.kind === 'symlink' ? LINK_MODE | state.mode : state.mode;
    return { ok: true, resolved, state: { exists: true, hash: state.hash, content: state.content ?? null, mode } };
  } catch (error) {
    if (WaypointError.is(error)) return { ok: false, resolved, reason: error.message };
    throw error;
  }
}
