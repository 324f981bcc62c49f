import { lstatSync, readFileSync } from 'node:fs';
import { createTwoFilesPatch } from 'diff';
import { sessionWorkspace } from '../checkpoint/index.js';
import type { Waypoint } from '../engine/index.js';
import type { Session } from '../model/index.js';

/** Per file: what undo (or force) does to the file as it is now, and what a merge does. */
export interface FileDiffs {
  undo: string | null;
  merge: string | null;
}

const MAX_DIFF_BYTES = 1024 * 1024;

/**
 * Unified diffs for a preview's files: from the file as it is now (read through the session's
 * workspace, so only its own paths) to the content the rewind leaves (from the blob store). Null
 * when a side is binary, too large or cannot be read; `merge` is the preview's own merge patch, or
 * the diff to its merged text. A skipped file has neither.
 */
export async function previewDiffs(
  waypoint: Waypoint,
  session: Session,
  files: ReadonlyArray<{ path: string; targetHash: string | null; mergePatch?: string | null; mergedText: string | null; resolution?: string | null }>,
): Promise<Record<string, FileDiffs>> {
  const workspace = sessionWorkspace(session, waypoint.store.location);
  const diffs: Record<string, FileDiffs> = {};
  for (const file of files) {
    // A skipped file is left as it is: there is no diff to show.
    if (file.resolution === 'skip') {
      diffs[file.path] = { undo: null, merge: null };
      continue;
    }
    let undo: string | null = null;
    let merge = file.mergePatch ?? null;
    try {
      const now = currentText(workspace.resolveKey(file.path as `${string}:${string}`, { followLink: false }).entryPath);
      const target = file.targetHash === null ? '' : textOf(await waypoint.blobs.get(file.targetHash));
      const name = file.path.replace(/^[^:]*:/, '');
      const patch = (to: string) => createTwoFilesPatch(`a/${name}`, `b/${name}`, now!, to, undefined, undefined, { context: 3 });
      if (now !== null && target !== null) undo = patch(target);
      if (merge === null && now !== null && file.mergedText !== null) merge = patch(file.mergedText);
    } catch {
      undo = null;
    }
    diffs[file.path] = { undo, merge };
  }
  return diffs;
}

function currentText(path: string): string | null {
  try {
    const stats = lstatSync(path);
    if (!stats.isFile() || stats.size > MAX_DIFF_BYTES) return null;
    return textOf(readFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    return null;
  }
}

function textOf(bytes: Buffer): string | null {
  if (bytes.length > MAX_DIFF_BYTES || bytes.includes(0)) return null;
  return bytes.toString('utf8');
}
