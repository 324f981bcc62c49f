import type { BlobStore } from '../blobs/index.js';
import { WaypointError, type Checkpoint } from '../model/index.js';
import { modeKind } from './file-capture.js';
import { unifiedPatch } from './text-patch.js';

/** Contents above this size get no patch (the line diff of two such files is not worth its time). */
const PATCH_LIMIT = 2 * 1024 * 1024;

/**
 * A checkpoint's change as a unified diff (`a/<key>` → `b/<key>`, `/dev/null` for a missing side),
 * derived now from its before and after blobs with the minimal line diff: checkpoints store no
 * patch, the blobs are the truth. Null where a patch says nothing: binary content, symbolic links,
 * renames and directories, skipped rows, contents over 2 MiB, or blobs that are gone. A row recorded
 * with a patch (older stores kept one) returns it when the blobs cannot make one.
 *
 * @example
 * const patch = await checkpointPatch(waypoint.blobs, checkpoint); // '--- a/workspace:f\n+++ b/workspace:f\n@@ …'
 */
export async function checkpointPatch(blobs: Pick<BlobStore, 'get'>, checkpoint: Checkpoint): Promise<string | null> {
  if (checkpoint.status === 'skipped' || !['create', 'modify', 'delete'].includes(checkpoint.op)) return checkpoint.patch;
  if ([checkpoint.beforeMode, checkpoint.afterMode].some((mode) => mode !== null && modeKind(mode) === 'symlink')) return checkpoint.patch;
  try {
    const before = checkpoint.beforeHash === null ? null : await blobs.get(checkpoint.beforeHash);
    const after = checkpoint.afterHash === null ? null : await blobs.get(checkpoint.afterHash);
    if ((before?.length ?? 0) > PATCH_LIMIT || (after?.length ?? 0) > PATCH_LIMIT) return checkpoint.patch;
    return unifiedPatch(checkpoint.path, before, after) ?? checkpoint.patch;
  } catch (error) {
    // The patch is a view: a blob that cannot be read leaves the recorded one, if any.
    if (WaypointError.is(error)) return checkpoint.patch;
    throw error;
  }
}
