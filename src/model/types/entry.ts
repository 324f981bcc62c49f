import type { JsonObject } from './json.js';

/**
 * Append-only typed log per session. Well-known types: `head-move`, `title`, `model-choice`,
 * `execution-state`, `goal`, `verification`, `file-rewind`, `note`.
 */
export interface Entry {
  id: string;
  sessionId: string;
  /** Order within the session, from 1. */
  seq: number;
  type: string;
  data: JsonObject;
  createdAt: number;
}

export type HeadMoveReason = 'append' | 'rewind' | 'redo' | 'fork' | 'edit' | 'retry' | 'restore' | (string & {});

/** The data of a `head-move` entry. */
export interface HeadMoveData {
  from: string | null;
  to: string | null;
  reason: HeadMoveReason;
  branchGeneration: number;
  [key: string]: string | number | null;
}
