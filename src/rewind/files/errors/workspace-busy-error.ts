import { ConflictError } from '../../../model/index.js';
import type { WorkspaceLockHolder } from '../../../store/index.js';

/**
 * Another rewind, redo or fork is changing files of the same workspace and did not finish in
 * time. Nothing was changed; try again once it is done.
 */
export class WorkspaceBusyError extends ConflictError {
  override readonly name = 'WorkspaceBusyError';

  constructor(options: { holder: WorkspaceLockHolder; waitedMs: number }) {
    const { holder } = options;
    super({
      code: 'WORKSPACE_BUSY',
      message:
        `Another operation is changing files in ${holder.path} (${holder.purpose}, process ${holder.pid} on ${holder.host}, ` +
        `since ${new Date(holder.acquiredAt).toISOString()}); waited ${Math.round(options.waitedMs / 1000)} s. Nothing was changed; try again when it has finished.`,
      details: { path: holder.path, purpose: holder.purpose, pid: holder.pid, host: holder.host, acquiredAt: holder.acquiredAt, waitedMs: options.waitedMs },
    });
  }
}
