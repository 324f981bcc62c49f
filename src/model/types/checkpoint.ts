export type CheckpointOp = 'create' | 'modify' | 'delete' | 'rename' | 'move' | 'mkdir' | 'rmdir';
export type CheckpointSource = 'tool' | 'fs' | 'exec';
export type CheckpointStatus = 'recorded' | 'skipped';

/** One file mutation with the content before and after it (as blob hashes). */
export interface Checkpoint {
  id: string;
  sessionId: string;
  turnId: string | null;
  /** The user message of the turn the change belongs to. */
  anchorMessageId: string | null;
  /** Order within the session, from 1. */
  seq: number;
  op: CheckpointOp;
  path: string;
  toPath: string | null;
  /** null: the file did not exist before. */
  beforeHash: string | null;
  /** null: the file does not exist after (deleted or moved away). */
  afterHash: string | null;
  beforeMode: number | null;
  afterMode: number | null;
  /** A unified diff recorded with the row (older stores; none is stored now): `checkpointPatch` derives it from the blobs. */
  patch: string | null;
  source: CheckpointSource;
  toolName: string | null;
  toolCallId: string | null;
  status: CheckpointStatus;
  skipReason: string | null;
  createdAt: number;
}
