import type { BlobStore } from '../../blobs/index.js';
import { writtenStamps, type Workspace, type WrittenIdentity, type WrittenStamp } from '../../workspace/index.js';
import { readDisk } from './disk-state.js';
import { RewindConflictError } from './errors/index.js';
import type { PlannedStep } from './rewind-plan.js';

/** A new file an apply put in place: where (its entry path), what it holds, and its temp file's identity. */
export interface InstalledFile {
  path: string;
  hash: string;
  write: WrittenIdentity;
}

/**
 * Takes the stamps of the files an apply put in place (see `writtenStamps`) — at once, while the
 * thread pool fsyncs their directories — and returns what keeps them, to be called once the apply
 * has committed: a rewind that fails keeps none.
 */
export function stampInstalled(installed: readonly InstalledFile[], durable: boolean): () => void {
  const stamps: Array<[string, WrittenStamp | null]> = installed.map((file) => [file.path, writtenStamps.stampOf(file.path, file.hash, file.write, durable)]);
  return () => {
    for (const [path, stamp] of stamps) writtenStamps.keep(path, stamp);
  };
}

/**
 * A step whose current file was known by its hash alone (see `readDisk`) overwrites bytes the
 * store must hold for a redo. The store normally does (that file's content came from it); the
 * rare one it no longer holds (a session deleted meanwhile) is read now, and must still be what
 * the rewind planned on, or nothing is changed.
 */
export async function readUnstored(steps: readonly PlannedStep[], blobs: BlobStore, workspace: Workspace): Promise<void> {
  const unread = steps.filter((step) => step.expected.exists && step.expected.content === null && step.expected.hash !== null);
  if (unread.length === 0) return;
  const stored = await blobs.hasMany(unread.map((step) => step.expected.hash!));
  for (const step of unread) {
    if (stored.has(step.expected.hash!)) continue;
    const disk = readDisk(workspace, step.path);
    if (!disk.ok || disk.state.hash !== step.expected.hash)
      throw new RewindConflictError({
        files: [{ path: step.path, status: 'external_modified', reason: 'it changed while the rewind was being prepared' }],
        hint: 'Preview again to see the current state.',
      });
    step.expected = disk.state;
  }
}
