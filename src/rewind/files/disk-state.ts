import { WaypointError } from '../../model/index.js';
import { readFileState, type EntryStat, type ResolvedPath, type Workspace } from '../../workspace/index.js';

/** A path's content as the rewind sees it: absent, or a regular file's bytes and mode. */
export interface ContentState {
  exists: boolean;
  hash: string | null;
  content: Buffer | null;
  mode: number | null;
}

export const ABSENT: ContentState = Object.freeze({ exists: false, hash: null, content: null, mode: null });

/** Reading a path for a rewind: its state, or why it cannot be used. */
export type DiskRead =
  | { ok: true; resolved: ResolvedPath; state: ContentState }
  /** `directory`: a directory is at the path (a rewind may replace it with a file, if it empties it). */
  | { ok: false; resolved: ResolvedPath | null; reason: string; directory?: true };

/**
 * Reads the current content of a workspace key. Only regular files and absent paths can be rewound;
 * a directory or a symbolic link at the path, or a path that no longer resolves inside its root,
 * is reported with a reason instead.
 */
export function readDisk(workspace: Workspace, path: string): DiskRead {
  let resolved: ResolvedPath;
  let entry: EntryStat;
  try {
    ({ resolved, entry } = workspace.resolveKeyEntry(path));
  } catch (error) {
    if (WaypointError.is(error)) return { ok: false, resolved: null, reason: error.message };
    throw error;
  }
  try {
    // The lstat taken while resolving serves the read too: one per path, not two.
    const state = readFileState(resolved, { withContent: true, entry });
    if (!state.exists) return { ok: true, resolved, state: ABSENT };
    if (state.kind === 'dir') return { ok: false, resolved, reason: 'it is now a directory; only regular files are rewound', directory: true };
    if (state.kind !== 'file') return { ok: false, resolved, reason: 'it is now a symbolic link; only regular files are rewound' };
    return { ok: true, resolved, state: { exists: true, hash: state.hash, content: state.content ?? null, mode: state.mode } };
  } catch (error) {
    if (WaypointError.is(error)) return { ok: false, resolved, reason: error.message };
    throw error;
  }
}
