import type { JsonObject } from './json.js';

export type JournalState = 'pending' | 'committed' | 'rolled_back';

/** One file a multi-file write intends to change. */
export interface JournalItem {
  path: string;
  /** Hash of the content expected before the write (null: must not exist). */
  expectedHash: string | null;
  /** Hash of the content to write (null: delete). */
  targetHash: string | null;
  mode?: number | null;
  [key: string]: string | number | null | undefined;
}

/** Durable intent record of a multi-file write, used to recover after a crash. */
export interface Journal {
  id: string;
  sessionId: string | null;
  kind: string;
  state: JournalState;
  /** The workspace root the item paths are relative to. */
  root: string;
  items: JournalItem[];
  metadata: JsonObject;
  createdAt: number;
  updatedAt: number;
}
