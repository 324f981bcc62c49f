import { mkdirSync } from 'node:fs';
import { WaypointError, type Checkpoint } from '../../model/index.js';
import { deletePath, type Workspace } from '../../workspace/index.js';
import type { TurnRollbackError } from './file-rewind-types.js';

// The steps of a turn rollback that are not file contents: directories a turn created or removed,
// and changes recorded without content. Each reports a failure as a per-checkpoint error instead
// of throwing, so the rollback can go on with the rest and say what it could not undo.

export function isDirectoryOp(checkpoint: Checkpoint): boolean {
  return checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir';
}

export function skippedError(checkpoint: Checkpoint): TurnRollbackError {
  return {
    checkpointId: checkpoint.id,
    path: checkpoint.path,
    code: 'CHECKPOINT_SKIPPED',
    message: `no content was kept when this change was recorded (${checkpoint.skipReason ?? 'skipped'})`,
  };
}

export function recreateDirectory(workspace: Workspace, checkpoint: Checkpoint): TurnRollbackError | null {
  return directoryStep(checkpoint, '', () => mkdirSync(workspace.resolveKey(checkpoint.path).realPath, { recursive: true }));
}

export function removeDirectory(workspace: Workspace, checkpoint: Checkpoint): TurnRollbackError | null {
  return directoryStep(checkpoint, 'the directory it created cannot be removed: ', () => deletePath(workspace.resolveKey(checkpoint.path)));
}

/** Runs one directory step; a failure becomes the checkpoint's error (its own code when typed). */
function directoryStep(checkpoint: Checkpoint, prefix: string, step: () => unknown): TurnRollbackError | null {
  try {
    step();
    return null;
  } catch (error) {
    return {
      checkpointId: checkpoint.id,
      path: checkpoint.path,
      code: WaypointError.is(error) ? error.code : 'DIRECTORY_RESTORE_FAILED',
      message: `${prefix}${(error as Error).message}`,
    };
  }
}
