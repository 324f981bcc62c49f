import { z } from 'zod';
import { parseInput } from '../model/index.js';
import type { FileRewindPreview } from '../rewind/index.js';
import type { OperationContext } from './operation-context.js';
import { NothingToUndoError } from './operation-errors.js';
import { FileChoices, Id, requireWorkspace, resolutionKeys } from './session-checks.js';

/**
 * What a checked rewind would do to the files, from one of: `messageId` (that input's turn and
 * every later one), `turnId` (one turn), or `lastTurn: true` (the newest turn with file changes
 * left to undo). `resolutions` are per-file choices (`src/a.ts` or `root:path` → `merge` | `force`
 * past a conflict, or `skip`: the file is left as it is and its changes are not undone);
 * `includeShellChanges` also undoes what shell commands changed.
 */
export const PreviewRewindRequest = z
  .object({
    sessionId: Id,
    messageId: Id.optional(),
    turnId: Id.optional(),
    lastTurn: z.literal(true).optional(),
    includeShellChanges: z.boolean().default(false),
    resolutions: FileChoices.default({}),
  })
  .strict()
  .refine((request) => [request.messageId, request.turnId, request.lastTurn].filter((value) => value !== undefined).length === 1, {
    message: 'give exactly one of messageId, turnId or lastTurn: true',
  });
export type PreviewRewindRequest = z.input<typeof PreviewRewindRequest>;

/** How many of the newest turns `lastTurn` looks through. */
const LAST_TURNS_SEARCHED = 50;

/**
 * Previews a checked rewind: each file's status (`safe`, `external_modified` when it changed since
 * the agent wrote it …), what applying does, whether `merge` applies cleanly and the merged text.
 * Changes nothing. Refused with `WORKSPACE_MISSING` when the directory is gone, `NOTHING_TO_UNDO`
 * when `lastTurn` finds no turn with changes left.
 *
 * @example
 * const preview = await previewRewind({ waypoint }, { sessionId, lastTurn: true });
 * if (preview.canApply) await applyRewind({ waypoint }, { sessionId, preview });
 */
export async function previewRewind(context: OperationContext, request: PreviewRewindRequest): Promise<FileRewindPreview> {
  const input = parseInput(PreviewRewindRequest, request, 'request');
  const { store, files } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  requireWorkspace(session);
  const choices = { includeShellChanges: input.includeShellChanges, resolutions: resolutionKeys(session, input.resolutions) };
  if (input.messageId !== undefined) return files.preview({ sessionId: session.id, messageId: input.messageId, ...choices });
  const turnId = input.turnId ?? (await lastTurnWithChanges(context, session.id));
  return files.preview({ sessionId: session.id, turnId, ...choices });
}

async function lastTurnWithChanges(context: OperationContext, sessionId: string): Promise<string> {
  const { store, files } = context.waypoint;
  for (const turn of (await store.listTurns(sessionId)).slice(-LAST_TURNS_SEARCHED).reverse()) {
    const preview = await files.preview({ sessionId, turnId: turn.id, includeShellChanges: true });
    if (preview.checkpointIds.length > 0) return turn.id;
  }
  throw new NothingToUndoError({ sessionId });
}
