import { hashContent, type Checkpoint, type CheckpointOp, type CheckpointSource } from '../model/index.js';
import type { BlobInput } from '../blobs/index.js';
import type { NewCheckpoint } from '../store/store.js';
import type { CaptureContext } from './capture-context.js';
import { unifiedPatch } from './text-patch.js';

/**
 * One file mutation about to be recorded. Contents are given either as bytes (`before`/`after`,
 * stored here) or as hashes of blobs already stored (`beforeHash`/`afterHash`, exec capture).
 */
export interface PendingChange {
  op: CheckpointOp;
  path: string;
  toPath?: string | null;
  before?: Buffer | null;
  after?: Buffer | null;
  beforeHash?: string | null;
  afterHash?: string | null;
  beforeMode?: number | null;
  afterMode?: number | null;
  /** Default: a unified diff of before/after for create/modify/delete of text files. */
  patch?: string | null;
  /** Set when the content could not be kept: the row is `skipped`, no content stored. */
  skipReason?: string | null;
}

export interface ChangeOrigin {
  source: CheckpointSource;
  toolName?: string | null;
  toolCallId?: string | null;
}

/**
 * Stores every before/after content in the blob store first (one batch, one sync; the after blob
 * delta-encoded against its before), then writes the checkpoint rows in one transaction — so a row
 * never names a blob that is not durable (invariant 2). Returns the rows in order.
 */
export async function recordChanges(context: CaptureContext, origin: ChangeOrigin, changes: readonly PendingChange[]): Promise<Checkpoint[]> {
  if (changes.length === 0) return [];
  return context.store.addCheckpoints(await storeChangeContents(context, origin, changes));
}

/**
 * First half of {@link recordChanges}: stores the contents and returns the rows to add. Callers
 * that change files themselves store contents before touching the file (nothing lost, invariant 2)
 * and add the rows only after the change succeeded (a failed change records nothing).
 */
export async function storeChangeContents(context: CaptureContext, origin: ChangeOrigin, changes: readonly PendingChange[]): Promise<NewCheckpoint[]> {
  return (await beginStoreChangeContents(context, origin, changes)).commit();
}

/** Contents written and being synced, and the rows that will name them (see {@link beginStoreChangeContents}). */
export interface PendingChangeContents {
  /** Waits until the contents are durable and indexed, then returns the rows to add. */
  commit(): Promise<NewCheckpoint[]>;
  /** Gives up: nothing becomes readable. */
  abort(): void;
}

/**
 * {@link storeChangeContents} in two phases: the contents are hashed, encoded and written and their
 * sync started, the rows (patches included) computed while it runs; `commit` waits for the sync and
 * indexes the blobs. A tool write overlaps this sync with its file's own fsync.
 */
export async function beginStoreChangeContents(context: CaptureContext, origin: ChangeOrigin, changes: readonly PendingChange[]): Promise<PendingChangeContents> {
  // One batch, one sync: each before first, then its after with the before as delta base (a base
  // may be an earlier item of the same batch, or content already stored).
  const inputs: BlobInput[] = [];
  const slots: Array<{ before: number | null; after: number | null }> = [];
  for (const change of changes) {
    const slot: { before: number | null; after: number | null } = { before: null, after: null };
    if (!change.skipReason) {
      const baseHash = change.before ? hashContent(change.before) : (change.beforeHash ?? undefined);
      if (change.before) slot.before = inputs.push({ content: change.before }) - 1;
      if (change.after) slot.after = inputs.push(baseHash ? { content: change.after, baseHash } : { content: change.after }) - 1;
    }
    slots.push(slot);
  }
  const pending = inputs.length > 0 ? await context.blobs.beginPutMany(inputs) : null;
  const hashes = pending?.hashes ?? [];
  let rows: NewCheckpoint[];
  try {
    rows = changes.map((change, index) => {
      const slot = slots[index]!;
      const skipped = Boolean(change.skipReason);
      const beforeHash = skipped ? (change.beforeHash ?? null) : slot.before !== null ? hashes[slot.before]! : (change.beforeHash ?? null);
      const afterHash = skipped ? (change.afterHash ?? null) : slot.after !== null ? hashes[slot.after]! : (change.afterHash ?? null);
      const patch =
        change.patch !== undefined
          ? change.patch
          : skipped || !['create', 'modify', 'delete'].includes(change.op)
            ? null
            : unifiedPatch(change.path, change.before ?? null, change.after ?? null);
      return {
        sessionId: context.sessionId,
        turnId: context.turnId,
        anchorMessageId: context.anchorMessageId,
        op: change.op,
        path: change.path,
        toPath: change.toPath ?? null,
        beforeHash,
        afterHash,
        beforeMode: change.beforeMode ?? null,
        afterMode: change.afterMode ?? null,
        patch,
        source: origin.source,
        toolName: origin.toolName ?? null,
        toolCallId: origin.toolCallId ?? null,
        status: skipped ? 'skipped' : 'recorded',
        skipReason: change.skipReason ?? null,
      };
    });
  } catch (error) {
    pending?.abort();
    throw error;
  }
  return {
    commit: async () => {
      await pending?.commit();
      return rows;
    },
    abort: () => pending?.abort(),
  };
}
