import type { JsonObject } from './json.js';

export type TurnStatus = 'running' | 'complete' | 'interrupted' | 'error';

/** One user input and everything the agent did for it. */
export interface Turn {
  id: string;
  sessionId: string;
  /** The user input message that started the turn. */
  userMessageId: string;
  status: TurnStatus;
  /** Branch generation of the session when the turn started. */
  branchGeneration: number;
  /** Ordered message ids from the user input to the final reply, pinned when the turn ends. */
  boundary: string[] | null;
  metadata: JsonObject;
  startedAt: number;
  endedAt: number | null;
}
