import { ForkRequest, SessionForker, type ForkPreview } from '../fork/index.js';
import { parseInput, type Session } from '../model/index.js';
import type { OperationContext } from './operation-context.js';
import { requireWorkspace, resolutionKeys } from './session-checks.js';

/**
 * What `forkSession` would do: the fork point, the parent's changes after it, and for a shared
 * workspace the parent's files it would change (`requiresConfirmation`). Changes nothing.
 *
 * @example
 * const preview = await previewFork({ waypoint }, { from: 'checkpoint', sessionId });
 * if (preview.requiresConfirmation) console.log(preview.files?.files.map((file) => file.path));
 */
export async function previewFork(context: OperationContext, request: ForkRequest): Promise<ForkPreview> {
  const { input, parent } = await forkInput(context, request);
  if (input.workspace?.mode === 'isolated') requireWorkspace(parent);
  return forkerOf(context).previewFork(input);
}

/** The request parsed, with its resolution keys spelled as workspace keys (`src/a.ts` → `workspace:src/a.ts`). */
export async function forkInput(context: OperationContext, request: ForkRequest): Promise<{ input: ForkRequest; parent: Session }> {
  const parsed = parseInput(ForkRequest, request, 'request');
  const parent = await context.waypoint.store.getSession(parsed.sessionId);
  const input = parsed.resolutions ? { ...parsed, resolutions: resolutionKeys(parent, parsed.resolutions) } : parsed;
  return { input, parent };
}

export function forkerOf(context: OperationContext): SessionForker {
  return new SessionForker({ store: context.waypoint.store, blobs: context.waypoint.blobs });
}
