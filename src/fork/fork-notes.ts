import type { NewMessage } from '../store/store.js';

/** Which fork wrote a note: `from` of the request. */
export type ForkKind = 'checkpoint' | 'message' | 'stable' | 'side-chat';

/**
 * The hidden reminder at the start of a side chat (model only). It states the
 * boundary: the inherited conversation is context, not a task to resume, and the workspace is
 * changed only on explicit request.
 */
export const SIDE_CHAT_REMINDER = [
  'Everything above this point was carried over from the main conversation so you can refer to it.',
  'It is not your task list: do not pick up or finish the work the main conversation was doing; answer only what is asked from here on.',
  'Leave the files in the workspace alone unless the person explicitly asks you, in this side conversation, to change them.',
].join(' ');

/**
 * The pair of fork notes: a hidden user message only the model sees, saying where the
 * conversation came from, and a divider only the person sees. A side chat gets the reminder
 * instead of the pair, and no divider, so its screen starts empty.
 */
export function forkNotes(input: {
  kind: ForkKind;
  parentSessionId: string;
  parentTitle: string;
  at: string | null;
  question?: string | undefined;
}): NewMessage[] {
  const fork = { parentSessionId: input.parentSessionId, at: input.at, kind: input.kind };
  if (input.kind === 'side-chat') {
    const notes: NewMessage[] = [
      {
        role: 'user',
        kind: 'fork_note',
        parts: [{ type: 'text', text: SIDE_CHAT_REMINDER }],
        metadata: { visibility: 'model', fork, note: 'side-chat-boundary' },
      },
    ];
    if (input.question !== undefined)
      notes.push({ role: 'user', kind: 'input', parts: [{ type: 'text', text: input.question }], metadata: { sideChat: true } });
    return notes;
  }
  return [
    {
      role: 'user',
      kind: 'fork_note',
      parts: [
        {
          type: 'text',
          text: `This conversation is a fork of "${input.parentTitle}" (session ${input.parentSessionId}). The messages above were shared with it up to the fork point; from here on this conversation is independent of it.`,
        },
      ],
      metadata: { visibility: 'model', fork, note: 'fork-notice' },
    },
    {
      role: 'system',
      kind: 'fork_note',
      parts: [{ type: 'text', text: `Forked from "${input.parentTitle}"` }],
      metadata: { visibility: 'ui', fork, note: 'fork-divider' },
    },
  ];
}
