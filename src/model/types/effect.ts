import type { JsonValue } from './json.js';

export type EffectKind = 'none' | 'workspace' | 'external';
export type EffectStatus = 'started' | 'succeeded' | 'failed';

/** An append-only ledger row for an external side effect; a status change is a new row. */
export interface Effect {
  id: string;
  sessionId: string;
  turnId: string | null;
  toolName: string;
  toolCallId: string | null;
  idempotencyKey: string;
  status: EffectStatus;
  request: JsonValue;
  result: JsonValue;
  createdAt: number;
}
