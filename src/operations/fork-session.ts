import { ForkConfirmationRequiredError, ForkRequest } from '../fork/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { forkSessionResult, type ForkSessionResult } from './fork-result.js';
import { forkerOf, forkInput } from './preview-fork.js';
import { requireWorkspace } from './session-checks.js';

/** The fork request: `from` `checkpoint` (default the latest), `message`, `stable` or `side-chat`; the engine's schema. */
export const ForkSessionRequest = ForkRequest;
export type ForkSessionRequest = ForkRequest;

/**
 * Forks a session in one of the four ways:
 * - `checkpoint`: history up to before that change's input; the change and every later one undone in the files;
 * - `message`: history up to that message; only changes after it undone;
 * - `stable`: at a completed turn's final reply (the parent may be running); files untouched;
 * - `side-chat`: a side question about the latest input; files untouched.
 *
 * The confirmation policy: a fork in the shared workspace (the default) that would change the
 * parent's files is refused with `FORK_NEEDS_CONFIRMATION` (the preview in `details.preview`)
 * unless `confirm: true`; what it overwrites is kept, so a redo on the parent brings it back.
 * `workspace: { mode: 'isolated' }` materializes the files at the fork point in a new directory
 * instead: in a git work tree a linked work tree detached at the parent's HEAD with the fork-point
 * changes on top, elsewhere a plain copy; `ignored: 'copy' | 'link' | 'omit'` (default `copy`)
 * says what happens to ignored paths git does not track. `result.materialized` reports what was
 * written, the git checkout, each ignored path and what was not copied, with the reason. Forks from a checkpoint or a message refuse while the parent runs a turn
 * (`TURN_RUNNING`); a shared-workspace fork that changes files refuses when the parent's directory
 * is gone (`WORKSPACE_MISSING`), while an isolated fork then builds its directory from the store
 * alone (another machine's session; `materialized.fromStore` says so and what the store lacks). A refusal changes nothing. Emits `fork` after the child committed.
 *
 * @example
 * const { session: child } = await forkSession({ waypoint }, { from: 'message', sessionId, messageId, workspace: { mode: 'isolated', ignored: 'link' } });
 */
export async function forkSession(
  context: OperationContext,
  request: ForkSessionRequest,
  options: { onProgress?: (done: number, total: number) => void } = {},
): Promise<ForkSessionResult> {
  const { input, parent } = await forkInput(context, request);
  if (input.from === 'message' || input.from === 'checkpoint') requireIdle(context, parent.id, 'fork');
  const forker = forkerOf(context);
  const preview = await forker.previewFork(input);
  if (preview.files !== null) requireWorkspace(parent);
  if (preview.requiresConfirmation && input.confirm !== true) {
    throw new ForkConfirmationRequiredError({
      sessionId: parent.id,
      files: (preview.files?.files ?? []).map((file) => ({ path: file.path, action: file.action, status: file.status })),
      details: { preview },
    });
  }
  const forked = await forker.fork({
    ...input,
    ...(input.confirm === true ? { preview } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const result = forkSessionResult(parent.id, forked);
  context.events?.emit('fork', { sessionId: parent.id, result });
  return result;
}
