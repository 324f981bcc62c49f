import { z } from 'zod';
import { timingEnd, timingMark, timingStart } from '../rewind/files/apply-timing.js';
import { parseInput } from '../model/index.js';
import type { Session } from '../model/index.js';
import { rewindSession, type OverwriteChanged } from '../rewind/index.js';
import { requireIdle, type OperationContext } from './operation-context.js';
import { conversationMove, type RewindForm, type RewindResult } from './rewind-result.js';
import { checkpointInSession, Id, requireWorkspace, resolutionKeys } from './session-checks.js';

/**
 * Files changed since the agent wrote them that a direct rewind may overwrite: `true` any, a list
 * (`src/a.ts` or `root:path`) only those — what a person confirmed after the preview.
 */
const Force = z.union([z.boolean(), z.array(z.string().min(1))]).default(false);

/**
 * A direct rewind, in one of its forms:
 * - `{ kind: 'latest' }`: the newest checkpoint not already rewound, its file put back;
 * - `{ kind: 'checkpoint', checkpointId }`: that checkpoint's file put back;
 * - `{ messageId, scope }` (kind `message`, the default): `conversation` moves the head to before
 *   that input (a reply maps to its input); `workspace` restores that input's latest file change;
 *   `both` does the files and the conversation in one commit. `cascade: true` takes every change
 *   from that input on, newest first, and refuses a target that is not a user input.
 * `force` lets it overwrite files changed since the agent wrote them (see `rewind`).
 */
export const RewindRequest = z.union(
  [
    z
      .object({
        kind: z.literal('message').default('message'),
        sessionId: Id,
        messageId: Id,
        scope: z.enum(['conversation', 'workspace', 'both']),
        cascade: z.boolean().default(false),
        force: Force,
      })
      .strict(),
    z.object({ kind: z.literal('latest'), sessionId: Id, force: Force }).strict(),
    z.object({ kind: z.literal('checkpoint'), sessionId: Id, checkpointId: Id, force: Force }).strict(),
  ],
  { error: 'expected { kind: "latest" }, { kind: "checkpoint", checkpointId } or { messageId, scope: "conversation" | "workspace" | "both", cascade? }' },
);
export type RewindRequest = z.input<typeof RewindRequest>;

/**
 * Rewinds directly: each file goes back as it was before the change(s). A file changed since the
 * agent wrote it is overwritten only when `force` allows it (what it held is kept, so `redo` brings
 * it back); otherwise the rewind is refused with `REWIND_OVERWRITES_CHANGES` (`details.files`),
 * planned exactly as `previewDirectRewind` shows. `previewRewind` + `applyRewind` is the checked
 * form with per-file `merge`. Refuses while a turn runs (`TURN_RUNNING`), when the workspace is gone (`WORKSPACE_MISSING`),
 * for a checkpoint of another session (`CHECKPOINT_NOT_IN_SESSION`) or a target that is not a
 * user input on the active path; a refusal changes nothing. Emits `rewind` after the commit.
 *
 * @example
 * const result = await rewind({ waypoint }, { sessionId, messageId: inputId, scope: 'both' });
 * console.log(result.files?.files.length, result.conversation?.draft);
 */
export async function rewind(context: OperationContext, request: RewindRequest): Promise<RewindResult> {
  timingStart();
  const input = parseInput(RewindRequest, request, 'request');
  requireIdle(context, input.sessionId, 'rewind');
  const { store, files, tasks } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  timingMark('op-session');
  let result: RewindResult;
  if (input.kind === 'latest' || input.kind === 'checkpoint') {
    if (input.kind === 'checkpoint') await checkpointInSession(context.waypoint, session, input.checkpointId);
    requireWorkspace(session);
    const form: RewindForm = input.kind === 'latest' ? { kind: 'latest' } : { kind: 'checkpoint', checkpointId: input.checkpointId };
    const options = { overwriteChanged: overwriteChanged(session, input.force) };
    const restored = input.kind === 'latest' ? await files.restoreLatest(session.id, options) : await files.restoreCheckpoint(input.checkpointId, options);
    result = { type: 'rewind', sessionId: session.id, form, checked: false, conversation: null, files: restored, preview: null };
  } else {
    if (input.scope !== 'conversation') requireWorkspace(session);
    const done = await rewindSession(store, files, {
      sessionId: session.id,
      messageId: input.messageId,
      scope: input.scope,
      cascade: input.cascade,
      tasks,
      overwriteChanged: overwriteChanged(session, input.force),
    });
    result = {
      type: 'rewind',
      sessionId: session.id,
      form: { kind: 'message', scope: input.scope, cascade: input.cascade, messageId: input.messageId },
      checked: false,
      conversation: conversationMove(done.conversation),
      files: done.files,
      preview: null,
    };
  }
  timingMark('rewindSession');
  context.events?.emit('rewind', { sessionId: session.id, session: await store.getSession(session.id), result, kind: 'rewind' });
  timingEnd('rewind');
  return result;
}

/** The operation's `force` as the file rewinder takes it: workspace keys for a list. */
export function overwriteChanged(session: Session, force: boolean | string[]): OverwriteChanged {
  return Array.isArray(force) ? Object.keys(resolutionKeys(session, Object.fromEntries(force.map((path) => [path, 'force' as const])))) : force;
}
