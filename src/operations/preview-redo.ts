import { z } from 'zod';
import { parseInput } from '../model/index.js';
import type { RedoFile } from '../rewind/index.js';
import type { OperationContext } from './operation-context.js';
import { redoResolutions } from './redo.js';
import { Id, requireWorkspace, Resolutions } from './session-checks.js';

/** What `redo` of a file rewind would do, with the same per-file choices. */
export const PreviewRedoRequest = z
  .object({ sessionId: Id, rewindId: Id, force: z.array(z.string().min(1)).default([]), resolutions: Resolutions.default({}) })
  .strict();
export type PreviewRedoRequest = z.input<typeof PreviewRedoRequest>;

/** A redo's preview: each file, and whether it can apply as chosen. */
export interface RedoPreview {
  type: 'redo-preview';
  sessionId: string;
  rewindId: string;
  files: RedoFile[];
  /** True when no file blocks: each is safe or resolved. */
  canApply: boolean;
}

/**
 * Previews undoing a file rewind: a file changed since the rewind is `external_modified`, with
 * `mergeAvailable` (and the merged text) when undoing the rewind's own change applies cleanly to
 * it. Changes nothing; `REWIND_NOT_FOUND` for an unknown id.
 *
 * @example
 * const preview = await previewRedo({ waypoint }, { sessionId, rewindId });
 * const merge = Object.fromEntries(preview.files.filter((file) => file.mergeAvailable).map((file) => [file.path, 'merge' as const]));
 * await redo({ waypoint }, { sessionId, rewindId, resolutions: merge });
 */
export async function previewRedo(context: OperationContext, request: PreviewRedoRequest): Promise<RedoPreview> {
  const input = parseInput(PreviewRedoRequest, request, 'request');
  const session = await context.waypoint.store.getSession(input.sessionId);
  requireWorkspace(session);
  const files = await context.waypoint.files.previewRedo(session.id, input.rewindId, redoResolutions(session, input));
  return {
    type: 'redo-preview',
    sessionId: session.id,
    rewindId: input.rewindId,
    files,
    canApply: files.every((file) => file.status === 'safe' || file.resolution !== null),
  };
}
