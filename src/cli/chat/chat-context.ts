import type { Waypoint } from '../../engine/index.js';
import type { Session } from '../../model/index.js';
import type { AgentRuntime, TurnResult } from '../../runtime/index.js';
import type { ChatIO } from './chat-io.js';

/** What `/redo` undoes: the last rewind this chat made (file, conversation, or both in one). */
export type RedoAction =
  | { kind: 'files'; sessionId: string; rewindId: string }
  | { kind: 'conversation'; sessionId: string }
  | { kind: 'both'; sessionId: string; rewindId: string };

/** What a slash command works with. */
export interface ChatContext {
  readonly io: ChatIO;
  readonly runtime: AgentRuntime;
  readonly waypoint: Waypoint;
  /**
   * The session the chat is in (changes with /fork and /resume). A new chat stores its session at
   * the first input; until then this is '' and only commands marked `withoutSession` run.
   */
  readonly sessionId: string;
  /** True while a turn (or a side chat's turn) runs. */
  readonly busy: boolean;
  session(): Promise<Session>;
  /** Move the chat to another session (a fork, a resumed one) and say so. */
  switchTo(session: Session, note: string): void;
  /** Run a turn like a typed message does (in the background on a terminal, so typing goes on). */
  launch(label: string, run: () => Promise<TurnResult | void>): Promise<void>;
  /** The next line typed goes to `handler` instead of the agent (`/edit` without text). */
  captureNextLine(prompt: string, handler: (line: string) => Promise<void>): void;
  /** Rewinds this chat made, newest last, for `/redo`. */
  readonly redoStack: RedoAction[];
}

/** A slash command: `/name args`. */
export interface SlashCommand {
  name: string;
  aliases?: string[];
  /** `/rewind [latest|<checkpointId>|…]` */
  usage: string;
  summary: string;
  /** Allowed while a turn runs (`/rewind` is not). */
  whileBusy?: boolean;
  /** Runs without storing the chat's new session first (`/help`, `/sessions`, `/resume`, `/exit`). */
  withoutSession?: boolean;
  run(context: ChatContext, args: string): Promise<void | 'exit'>;
}
