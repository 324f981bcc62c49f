import { hashContent, type Checkpoint, type CheckpointOp, type CheckpointSource } from '../model/index.js';
import { DEFERRED_BATCH_BYTES, type PendingBlobPut } from '../blobs/index.js';
import type { NewCheckpoint } from '../store/store.js';
import type { WriteIntentFile } from '../store/write-intent.js';
import type { CaptureContext } from './capture-context.js';

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
 * never names a blob that is not durable (nothing lost). The contents are pinned from before they
 * are stored until the rows commit, so a GC in any process never sweeps them in between. Returns
 * the rows in order.
 */
export async function recordChanges(context: CaptureContext, origin: ChangeOrigin, changes: readonly PendingChange[]): Promise<Checkpoint[]> {
  if (changes.length === 0) return [];
  const pending = await beginStoreChangeContents(context, origin, changes);
  let rows: NewCheckpoint[];
  try {
    rows = await pending.commit();
  } catch (error) {
    pending.abort();
    throw error;
  }
  return pending.finish(rows);
}

/**
 * First half of {@link recordChanges}: stores the contents and returns the rows to add. The pin
 * taken while storing is released when this returns, so the caller must add the rows at once;
 * callers that change files in between use {@link beginStoreChangeContents} and `finish`.
 */
export async function storeChangeContents(context: CaptureContext, origin: ChangeOrigin, changes: readonly PendingChange[]): Promise<NewCheckpoint[]> {
  const pending = await beginStoreChangeContents(context, origin, changes);
  try {
    return await pending.commit();
  } finally {
    pending.abort();
  }
}

/** Contents written and being synced, and the rows that will name them (see {@link beginStoreChangeContents}). */
export interface PendingChangeContents {
  /** Waits until the contents are durable and indexed, then returns the rows to add. */
  commit(): Promise<NewCheckpoint[]>;
  /** Adds the rows (after `commit`) and releases the pin in one transaction. */
  finish(rows: NewCheckpoint[]): Promise<Checkpoint[]>;
  /** Gives up: nothing becomes readable, the pin is released (in the background). */
  abort(): void;
}

export interface StoreChangesOptions {
  /**
   * The files the caller is about to change (tool and fs writes): recorded with the pin, so that
   * after a crash between the file change and `finish`, opening the store adds the rows when the
   * files show the change happened (`recoverWriteIntents`). A hash left undefined is taken from the
   * change whose `path` is the file's (its before or after content).
   */
  files?: Array<Pick<WriteIntentFile, 'path' | 'entryPath'> & Partial<Pick<WriteIntentFile, 'beforeHash' | 'afterHash' | 'tempPath'>>>;
  /**
   * Called once the write intent is recorded (or at once when there is nothing to pin), before the
   * patches are computed: a caller may create files the intent names from then on, and its own
   * fsync overlaps the rest. An error it throws gives the whole write up.
   */
  onPinned?: () => void;
}

/**
 * {@link storeChangeContents} in two phases: the contents are hashed and pinned (a write intent,
 * with the rows and `files` for crash recovery), then encoded and written and their sync started,
 * the patches computed while it runs; `commit` waits for the sync and indexes the blobs; `finish`
 * adds the rows and drops the intent in one transaction. A tool write overlaps the blob sync with
 * its file's own fsync.
 */
export async function beginStoreChangeContents(
  context: CaptureContext,
  origin: ChangeOrigin,
  changes: readonly PendingChange[],
  options: StoreChangesOptions = {},
): Promise<PendingChangeContents> {
  // One batch, one sync: each before first, then its after with the before as delta base (a base
  // may be an earlier item of the same batch, or content already stored). Hashed once, here: the
  // pin must name them before anything is stored.
  const inputs: Array<{ content: Buffer; hash: string; verified: true; baseHash?: string }> = [];
  const pinned = new Set<string>();
  const slots: Array<{ beforeHash: string | null; afterHash: string | null }> = [];
  for (const change of changes) {
    const slot = { beforeHash: change.beforeHash ?? null, afterHash: change.afterHash ?? null };
    if (!change.skipReason) {
      if (change.before) slot.beforeHash = hashContent(change.before);
      if (change.after) slot.afterHash = hashContent(change.after);
      const baseHash = slot.beforeHash ?? undefined;
      if (change.before) inputs.push({ content: change.before, hash: slot.beforeHash!, verified: true });
      if (change.after) inputs.push({ content: change.after, hash: slot.afterHash!, verified: true, ...(baseHash ? { baseHash } : {}) });
      if (slot.beforeHash) pinned.add(slot.beforeHash);
      if (slot.afterHash) pinned.add(slot.afterHash);
    }
    slots.push(slot);
  }
  const rows: NewCheckpoint[] = changes.map((change, index) => {
    const slot = slots[index]!;
    const skipped = Boolean(change.skipReason);
    return {
      sessionId: context.sessionId,
      turnId: context.turnId,
      anchorMessageId: context.anchorMessageId,
      op: change.op,
      path: change.path,
      toPath: change.toPath ?? null,
      beforeHash: skipped ? (change.beforeHash ?? null) : slot.beforeHash,
      afterHash: skipped ? (change.afterHash ?? null) : slot.afterHash,
      beforeMode: change.beforeMode ?? null,
      afterMode: change.afterMode ?? null,
      patch: null,
      source: origin.source,
      toolName: origin.toolName ?? null,
      toolCallId: origin.toolCallId ?? null,
      status: skipped ? 'skipped' : 'recorded',
      skipReason: change.skipReason ?? null,
    };
  });
  const files: WriteIntentFile[] = (options.files ?? []).map((file) => {
    const row = rows.find((candidate) => candidate.path === file.path);
    return {
      path: file.path,
      entryPath: file.entryPath,
      beforeHash: file.beforeHash !== undefined ? file.beforeHash : (row?.beforeHash ?? null),
      afterHash: file.afterHash !== undefined ? file.afterHash : (row?.afterHash ?? null),
      ...(file.tempPath === undefined ? {} : { tempPath: file.tempPath }),
    };
  });
  // The pin (and the recovery record) must be committed before the blobs are indexed and before
  // any file changes. When every delta base is an item of this batch and the batch is small (not
  // indexed at once by the raw-first path), it is committed while the blobs' fsync runs: blobs
  // found stored and swept before it are stored again by `commit`. Otherwise it comes first.
  let contentBytes = 0;
  for (const input of inputs) contentBytes += input.content.length;
  const externalBase = changes.some((change) => !change.skipReason && change.after && !change.before && change.beforeHash);
  const pinFirst = externalBase || contentBytes >= DEFERRED_BATCH_BYTES;
  const wanted = pinned.size > 0 || files.length > 0;
  const record = () => context.store.recordWriteIntent({ sessionId: context.sessionId, hashes: [...pinned], checkpoints: files.length > 0 ? rows : [], files });
  let intent = wanted && pinFirst ? await record() : null;
  let released = false;
  const release = () => {
    if (released || intent === null) return;
    released = true;
    // Best effort: a pin left behind only keeps blobs until this process ends.
    context.store.finishWriteIntent(intent.id).catch(() => undefined);
  };
  let pending: PendingBlobPut | null = null;
  try {
    if (intent !== null || !wanted) options.onPinned?.();
    pending = inputs.length > 0 ? await context.blobs.beginPutMany(inputs) : null;
    if (wanted && intent === null) {
      intent = await record();
      options.onPinned?.();
    }
    // No patch is computed: `checkpointPatch` derives it from the blobs when someone asks.
    changes.forEach((change, index) => {
      if (change.patch !== undefined) rows[index]!.patch = change.patch;
    });
  } catch (error) {
    pending?.abort();
    release();
    throw error;
  }
  return {
    commit: async () => {
      await pending?.commit();
      return rows;
    },
    finish: async (finalRows) => {
      if (intent === null || released) return context.store.addCheckpoints(finalRows);
      released = true;
      return context.store.finishWriteIntent(intent.id, finalRows);
    },
    abort: () => {
      pending?.abort();
      release();
    },
  };
}
