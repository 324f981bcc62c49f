import type { Checkpoint, CheckpointOp } from '../model/index.js';
import type { BlobStore } from '../blobs/index.js';
import type { Store } from '../store/store.js';
import { displayPath } from './checkpoint-list.js';
import { countLineChanges } from './text-patch.js';

/** One file's net change over a turn. */
export interface TurnFileChange {
  /** Workspace key where the file ended up (`workspace:src/a.ts`). */
  path: string;
  displayPath: string;
  /** Where it was at the start of the turn, when it was renamed or moved. */
  fromPath: string | null;
  /** Net effect: create/modify/delete of content, rename/move when it only changed place, mkdir/rmdir for directories. */
  op: CheckpointOp;
  /** null for binary files and for changes whose content was not kept. */
  added: number | null;
  removed: number | null;
  binary: boolean;
  /** Reasons content was not kept for some change of this file (it cannot be fully rewound). */
  skipped: string[];
  /** Checkpoints of this file in the turn, in order. */
  checkpointIds: string[];
  sources: Array<Checkpoint['source']>;
}

export interface TurnSummary {
  turnId: string;
  files: TurnFileChange[];
  /** Checkpoints recorded `skipped`, with their reasons. */
  skipped: Array<{ checkpointId: string; path: string; displayPath: string; reason: string }>;
  totals: { files: number; added: number; removed: number };
}

interface Tracked {
  path: string;
  fromPath: string;
  firstBefore: string | null;
  lastAfter: string | null;
  existedBefore: boolean;
  existsAfter: boolean;
  lastOp: CheckpointOp;
  relocation: 'rename' | 'move' | null;
  skipped: string[];
  checkpointIds: string[];
  sources: Array<Checkpoint['source']>;
}

/**
 * Summarizes a turn's changes per file: a file edited three times is one line, from its content at
 * the start of the turn to its content at the end (read from the blob store), with lines added and
 * removed; a file created and deleted within the turn is left out; renames follow the file.
 *
 * @example
 * const { files, totals } = await summarizeTurn(store, blobs, turnId)
 * // [{ displayPath: 'src/a.ts', op: 'modify', added: 3, removed: 1, binary: false, skipped: [] }]
 */
export async function summarizeTurn(store: Store, blobs: BlobStore, turnId: string): Promise<TurnSummary> {
  const turn = await store.getTurn(turnId);
  const checkpoints = await store.listCheckpoints(turn.sessionId, { turnId });
  const byPath = new Map<string, Tracked>();
  const order: Tracked[] = [];
  const skipped: TurnSummary['skipped'] = [];
  for (const checkpoint of checkpoints) {
    let tracked = byPath.get(checkpoint.path);
    if (!tracked) {
      tracked = {
        path: checkpoint.path,
        fromPath: checkpoint.path,
        firstBefore: checkpoint.beforeHash,
        lastAfter: checkpoint.beforeHash,
        existedBefore: checkpoint.op !== 'create' && checkpoint.op !== 'mkdir',
        existsAfter: checkpoint.op !== 'create' && checkpoint.op !== 'mkdir',
        lastOp: checkpoint.op,
        relocation: null,
        skipped: [],
        checkpointIds: [],
        sources: [],
      };
      byPath.set(checkpoint.path, tracked);
      order.push(tracked);
    }
    tracked.checkpointIds.push(checkpoint.id);
    if (!tracked.sources.includes(checkpoint.source)) tracked.sources.push(checkpoint.source);
    tracked.lastOp = checkpoint.op;
    if (checkpoint.status === 'skipped') {
      const reason = checkpoint.skipReason ?? 'skipped';
      tracked.skipped.push(reason);
      skipped.push({ checkpointId: checkpoint.id, path: checkpoint.path, displayPath: displayPath(checkpoint.path), reason });
    }
    if (checkpoint.op === 'rename' || checkpoint.op === 'move') {
      byPath.delete(checkpoint.path);
      tracked.path = checkpoint.toPath ?? checkpoint.path;
      tracked.relocation = checkpoint.op;
      byPath.set(tracked.path, tracked);
      continue;
    }
    tracked.lastAfter = checkpoint.afterHash;
    tracked.existsAfter = checkpoint.op !== 'delete' && checkpoint.op !== 'rmdir';
  }
  const files: TurnFileChange[] = [];
  for (const tracked of order) {
    const change = await summarizeFile(blobs, tracked);
    if (change) files.push(change);
  }
  return {
    turnId,
    files,
    skipped,
    totals: {
      files: files.length,
      added: files.reduce((sum, file) => sum + (file.added ?? 0), 0),
      removed: files.reduce((sum, file) => sum + (file.removed ?? 0), 0),
    },
  };
}

async function summarizeFile(blobs: BlobStore, tracked: Tracked): Promise<TurnFileChange | null> {
  const isDirectory = tracked.lastOp === 'mkdir' || tracked.lastOp === 'rmdir';
  let op: CheckpointOp;
  if (!tracked.existedBefore && !tracked.existsAfter) return null;
  if (isDirectory) op = tracked.existsAfter ? 'mkdir' : 'rmdir';
  else if (!tracked.existedBefore) op = 'create';
  else if (!tracked.existsAfter) op = 'delete';
  else if (tracked.firstBefore === tracked.lastAfter && tracked.relocation) op = tracked.relocation;
  else op = 'modify';
  const moved = tracked.fromPath !== tracked.path;
  if (op === 'modify' && !moved && tracked.firstBefore === tracked.lastAfter && tracked.skipped.length === 0 && tracked.firstBefore !== null) return null;

  let lines: { added: number; removed: number } | null = null;
  let binary = false;
  const contentKept = tracked.skipped.length === 0 && !isDirectory;
  if (contentKept) {
    const before = tracked.existedBefore && tracked.firstBefore ? await blobs.get(tracked.firstBefore) : null;
    const after = tracked.existsAfter && tracked.lastAfter ? await blobs.get(tracked.lastAfter) : null;
    lines = countLineChanges(before, after);
    binary = lines === null;
  }
  return {
    path: tracked.path,
    displayPath: displayPath(tracked.path),
    fromPath: moved ? tracked.fromPath : null,
    op,
    added: lines?.added ?? null,
    removed: lines?.removed ?? null,
    binary,
    skipped: tracked.skipped,
    checkpointIds: tracked.checkpointIds,
    sources: tracked.sources,
  };
}
