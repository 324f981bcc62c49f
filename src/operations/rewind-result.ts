import type { Session } from '../model/index.js';
import type { FileRewindPreview, FileRewindResult, RewindScope } from '../rewind/index.js';

/** Which rewind ran: a checkpoint's file, the latest one, by message with a scope, or a turn's files. */
export type RewindForm =
  | { kind: 'latest' }
  | { kind: 'checkpoint'; checkpointId: string }
  | { kind: 'message'; scope: RewindScope; cascade: boolean; messageId: string }
  /** A checked rewind of one turn's file changes (`undo`). */
  | { kind: 'turn'; turnId: string };

/** Where the conversation went (null in a `RewindResult` when it did not move). */
export interface ConversationMove {
  headMessageId: string | null;
  /** The input rewound to before. */
  targetMessageId: string;
  /** That input's text, to edit and send again. */
  draft: string;
  branchGeneration: number;
}

/** What every rewind returns, whichever form and surface: the CLI prints it, the chat draws it, `--json` is it. */
export interface RewindResult {
  type: 'rewind';
  sessionId: string;
  form: RewindForm;
  /** True when the files went through a checked preview (conflicts refused unless resolved). */
  checked: boolean;
  conversation: ConversationMove | null;
  files: FileRewindResult | null;
  /** The preview a checked rewind applied. */
  preview: FileRewindPreview | null;
}

export function conversationMove(moved: { session: Session; targetMessageId: string; draft: string } | null): ConversationMove | null {
  return (
    moved && {
      headMessageId: moved.session.headMessageId,
      targetMessageId: moved.targetMessageId,
      draft: moved.draft,
      branchGeneration: moved.session.branchGeneration,
    }
  );
}
