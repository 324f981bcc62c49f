import { parseInput } from '../model/index.js';
import { previewSessionRewind, type DirectRewindPreview, type SessionRewindPreview } from '../rewind/index.js';
import type { OperationContext } from './operation-context.js';
import type { RewindForm } from './rewind-result.js';
import { overwriteChanged, RewindRequest } from './rewind.js';
import { checkpointInSession, requireWorkspace } from './session-checks.js';

/** What a direct rewind would do: the conversation move (if any) and the files, each file with its status. */
export interface DirectRewindPreviewResult {
  type: 'rewind-preview';
  sessionId: string;
  form: Exclude<RewindForm, { kind: 'turn' }>;
  /** Null when the form does not move the conversation. */
  conversation: SessionRewindPreview['conversation'];
  /** Null when the form changes no file (conversation scope). */
  files: DirectRewindPreview | null;
}

/**
 * Previews `rewind` with the same request: the same target rules and the same file plan, so a
 * file changed since the agent wrote it is `external_modified` and listed in `files.changed`,
 * blocking (`canApply: false`) unless `force` allows it. Changes nothing; refusals are those of
 * `rewind` (`WORKSPACE_MISSING`, `CHECKPOINT_NOT_IN_SESSION`, `NOTHING_TO_REWIND` …) except that a
 * running turn does not stop a preview.
 *
 * @example
 * const preview = await previewDirectRewind({ waypoint }, { sessionId, kind: 'latest' });
 * if (preview.files?.changed.length) console.log('would overwrite', preview.files.changed);
 */
export async function previewDirectRewind(context: OperationContext, request: RewindRequest): Promise<DirectRewindPreviewResult> {
  const input = parseInput(RewindRequest, request, 'request');
  const { store, files } = context.waypoint;
  const session = await store.getSession(input.sessionId);
  const force = overwriteChanged(session, input.force);
  if (input.kind === 'latest' || input.kind === 'checkpoint') {
    if (input.kind === 'checkpoint') await checkpointInSession(context.waypoint, session, input.checkpointId);
    requireWorkspace(session);
    const form = input.kind === 'latest' ? ({ kind: 'latest' } as const) : ({ kind: 'checkpoint', checkpointId: input.checkpointId } as const);
    return {
      type: 'rewind-preview',
      sessionId: session.id,
      form,
      conversation: null,
      files: await files.previewDirect(session.id, form, { overwriteChanged: force }),
    };
  }
  if (input.scope !== 'conversation') requireWorkspace(session);
  const preview = await previewSessionRewind(store, files, {
    sessionId: session.id,
    messageId: input.messageId,
    scope: input.scope,
    cascade: input.cascade,
    overwriteChanged: force,
  });
  return {
    type: 'rewind-preview',
    sessionId: session.id,
    form: { kind: 'message', scope: input.scope, cascade: input.cascade, messageId: input.messageId },
    conversation: preview.conversation,
    files: preview.files,
  };
}
