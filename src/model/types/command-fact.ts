import type { JsonValue } from './json.js';

/** The recorded outcome of an idempotent command: replaying the command id returns this result. */
export interface CommandFact {
  commandId: string;
  sessionId: string | null;
  kind: string;
  result: JsonValue;
  createdAt: number;
}
