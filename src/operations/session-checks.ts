import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { Waypoint } from '../engine/index.js';
import { InvalidArgumentError, type Checkpoint, type Session } from '../model/index.js';
import type { FileResolution } from '../rewind/index.js';
import { WorkspaceMissingError } from './operation-errors.js';

/** An id as a caller passes it; unknown ids are the store's `…_NOT_FOUND`. */
export const Id = z.string().trim().min(1).max(200);

/** Per-file ways past a conflict: `src/a.ts` (the primary root) or `root:path`. */
export const Resolutions = z.record(z.string().min(1), z.enum(['merge', 'force']));

/** Per-file choices of a checked rewind or a redo: a way past a conflict, or `skip` (leave the file as it is). */
export const FileChoices = z.record(z.string().min(1), z.enum(['merge', 'force', 'skip']));

/** Refuses a file operation when the session's working directory is gone. */
export function requireWorkspace(session: Session): void {
  if (session.workdir !== null && !existsSync(session.workdir)) throw new WorkspaceMissingError({ sessionId: session.id, workdir: session.workdir });
}

/** The checkpoint, refused with `CHECKPOINT_NOT_IN_SESSION` when another session recorded it. */
export async function checkpointInSession(waypoint: Waypoint, session: Session, checkpointId: string): Promise<Checkpoint> {
  const checkpoint = await waypoint.store.getCheckpoint(checkpointId);
  if (checkpoint.sessionId !== session.id) {
    throw new InvalidArgumentError({
      code: 'CHECKPOINT_NOT_IN_SESSION',
      parameter: 'checkpointId',
      value: checkpointId,
      reason: `it was recorded by session ${checkpoint.sessionId}, not ${session.id}.`,
    });
  }
  return checkpoint;
}

/** `src/a.ts` → `workspace:src/a.ts`; a key naming one of the session's roots (`notes:todo.md`) is kept. */
export function resolutionKeys<Choice extends FileResolution>(session: Pick<Session, 'metadata'>, resolutions: Record<string, Choice>): Record<string, Choice> {
  const roots = new Set(['workspace']);
  if (Array.isArray(session.metadata.roots)) {
    for (const root of session.metadata.roots)
      if (root && typeof root === 'object' && !Array.isArray(root) && typeof root.name === 'string') roots.add(root.name);
  }
  const keyed: Record<string, Choice> = {};
  for (const [path, resolution] of Object.entries(resolutions)) {
    const at = path.indexOf(':');
    keyed[at > 0 && roots.has(path.slice(0, at)) ? path : `workspace:${path.replace(/^\.\//, '')}`] = resolution;
  }
  return keyed;
}
