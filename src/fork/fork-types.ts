import type { Session } from '../model/index.js';
import type { FileRewindPreview, FileRewindResult } from '../rewind/index.js';
import type { CopiedState } from './fork-state.js';
import type { IsolatedMaterialization } from './isolated-workspace.js';
import type { ForkKind } from './fork-notes.js';

export type ForkStrategy = 'shared' | 'isolated';

/** What a fork would do, without doing it. */
export interface ForkPreview {
  from: ForkKind;
  parentSessionId: string;
  /** The message the child's inherited history ends at (null: empty history). */
  at: string | null;
  strategy: ForkStrategy;
  /** The parent's checkpoints made after the fork point (oldest first): undone in the child's files. */
  checkpointIds: string[];
  /** Shared workspace: the parent's files the fork would change (FileRewinder preview semantics); null when none. */
  files: FileRewindPreview | null;
  /** True when `fork` needs `confirm: true` (a shared-workspace fork that changes files). */
  requiresConfirmation: boolean;
  /** Isolated: the directory that will be materialized (null: chosen at fork time, from the child id). */
  workdir: string | null;
}

/** What a fork did. */
export interface ForkResult {
  session: Session;
  /** False when the command id had already produced this child (nothing was done again). */
  created: boolean;
  from: ForkKind;
  strategy: ForkStrategy;
  at: string | null;
  /** Shared workspace: the file rewind of the parent's directory (redo it on the parent to undo). */
  fileRewind: FileRewindResult | null;
  /** Isolated workspace: the materialized directory. */
  materialized: IsolatedMaterialization | null;
  copied: CopiedState['summary'] | null;
}

/** The data of a child's `fork-origin` entry. */
export interface ForkOriginData {
  parentSessionId: string;
  from: ForkKind;
  at: string | null;
  strategy: ForkStrategy;
  workdir: string | null;
  /** The parent's checkpoints after the fork point. */
  checkpointIds: string[];
  /** The parent's `file-rewind` the fork applied in a shared workspace. */
  fileRewindId: string | null;
  [key: string]: string | string[] | null;
}

export interface ForkEvents {
  /** Emitted after the child committed (and, for a shared fork, after its file rewind committed). */
  'session-fork': {
    session: Session;
    parentSessionId: string;
    from: ForkKind;
    strategy: ForkStrategy;
    at: string | null;
    fileRewindId: string | null;
    workdir: string | null;
  };
}
