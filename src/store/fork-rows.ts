import { InvalidArgumentError, newId } from '../model/index.js';
import type { SessionRow } from './sqlite/rows.js';
import type { ForkSessionInput } from './store.js';

/** The command fact kind a fork records under its command id. */
export const FORK_COMMAND_KIND = 'session-fork';

/** A fork's command id that an earlier, different command already used: refused, whatever the backend. */
export function commandIdReusedError(commandId: string, kind: string): InvalidArgumentError {
  return new InvalidArgumentError({
    parameter: 'commandId',
    value: commandId,
    code: 'COMMAND_ID_REUSED',
    reason: `command id ${commandId} was already used for a different command (${kind}); use a new id.`,
  });
}

/** A fork starts at a message of its parent's own conversation tree, or it is refused. */
export function checkForkPoint(parent: SessionRow, at: string, targetTreeId: string): void {
  if (targetTreeId === parent.tree_id) return;
  throw new InvalidArgumentError({
    parameter: 'at',
    value: at,
    code: 'MESSAGE_NOT_IN_TREE',
    reason: `message ${at} is not part of session ${parent.id}'s conversation; a fork must start at one of its messages.`,
  });
}

/** The child's session row: same tree and root as its parent, its head at the fork point. */
export function forkedSessionRow(parent: SessionRow, input: ForkSessionInput, now: number): SessionRow {
  return {
    id: input.id ?? newId('session', now),
    kind: input.kind,
    tree_id: parent.tree_id,
    parent_session_id: parent.id,
    root_session_id: parent.root_session_id,
    forked_from_message_id: input.at,
    head_message_id: input.at,
    branch_generation: 0,
    title: input.title ?? (input.kind === 'side_chat' ? 'Selection side chat' : `Fork of ${parent.title}`),
    workdir: input.workdir === undefined ? parent.workdir : input.workdir,
    git_branch: parent.git_branch,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
}
