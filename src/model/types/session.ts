import type { JsonObject } from './json.js';

/** `main` starts a conversation tree; `fork` and `side_chat` point into a parent's tree. */
export type SessionKind = 'main' | 'fork' | 'side_chat';

/**
 * A session is a head pointer into a conversation tree plus a little metadata. Its history is the
 * path from the tree's root to `headMessageId` (null: empty history).
 */
export interface Session {
  id: string;
  kind: SessionKind;
  /** The conversation tree this session's messages live in; forks share their parent's tree. */
  treeId: string;
  parentSessionId: string | null;
  /** The first session of this family (root trace); equals `id` for a main session. */
  rootSessionId: string;
  /** The message a fork was created at (its initial head), null for main sessions. */
  forkedFromMessageId: string | null;
  headMessageId: string | null;
  /** Bumped by every rewind, so late results of work started on an older branch can be discarded. */
  branchGeneration: number;
  /** Latest title entry; titles are append-only entries, latest wins. */
  title: string;
  workdir: string | null;
  /** The git branch of `workdir` when the session was created, when it is a git repository. */
  gitBranch: string | null;
  metadata: JsonObject;
  createdAt: number;
  updatedAt: number;
}
