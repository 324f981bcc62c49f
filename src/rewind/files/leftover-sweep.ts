import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { BlobStore } from '../../blobs/index.js';
import { hashContent, newId } from '../../model/index.js';
import type { Store } from '../../store/index.js';
import { findLeftovers, fsyncDirectories, readLeftover, removeLeftover, type Leftover, type Workspace, type WorkspacePath } from '../../workspace/index.js';
import { journalWorkspace } from './journal-recovery.js';
import { preservedPinOwner, preservedRecord } from './preserved-contents.js';
import { liveWriter, lockWorkspace } from './workspace-lock.js';

/** Leftovers younger than this are left alone unless the caller says otherwise (see {@link sweepLeftovers}). */
export const DEFAULT_LEFTOVER_MIN_AGE_MS = 60 * 60 * 1000;

/** Why a leftover was left where it is. */
export type LeftoverKeepReason =
  /** A pending journal names its file: recovery puts it back or removes it, not the sweep. */
  | 'journal_pending'
  /** A write in flight (a write intent) names its file or it: write recovery owns it. */
  | 'write_intent'
  /** The process its name gives (the pid form) still runs. */
  | 'writer_running'
  /** Written or renamed more recently than the minimum age: a write may still be using it. */
  | 'recent'
  /** It changed, went or could not be read while it was being kept: looked at again next time. */
  | 'changed'
  /** Its content could not be read. */
  | 'unreadable'
  /** Its content is kept, but the file could not be removed (permissions). */
  | 'remove_failed';

/** One leftover as the report lists it. */
export interface LeftoverItem {
  /** The leftover's own key (`workspace:src/.a.ts.0123456789ab.wp-old`). */
  path: WorkspacePath;
  /** `parked`: content a compare-and-replace took off the file; `temp`: new content that never landed. */
  kind: 'temp' | 'parked';
  /** The file it was beside (null when its name was cut and cannot be told). */
  target: WorkspacePath | null;
  size: number;
  /** The later of its modification and change times (ms since the epoch). */
  changedAt: number;
}

/** A leftover swept (or, in a dry run, that would be): its content's hash, and where it is recorded. */
export interface SweptLeftover extends LeftoverItem {
  hash: string;
  /** The record that keeps the content (restorable as a kept-aside save; null in a dry run). */
  recordId: string | null;
}

export interface KeptLeftover extends LeftoverItem {
  reason: LeftoverKeepReason;
  detail: string;
}

export interface LeftoverSweepReport {
  dryRun: boolean;
  minAgeMs: number;
  /** The session whose records keep the swept contents. */
  sessionId: string;
  /** Removed (a dry run: would be), their contents stored and recorded first. */
  swept: SweptLeftover[];
  /** Left in place, each with why. */
  kept: KeptLeftover[];
  directories: number;
  /** Directories that could not be listed. */
  unreadable: WorkspacePath[];
}

export interface LeftoverSweepInput {
  store: Store;
  blobs: BlobStore;
  workspace: Workspace;
  /** The session the swept contents are recorded in (restorable from its rewind status). */
  sessionId: string;
  dryRun?: boolean;
  /** A leftover written or renamed less than this long ago is kept. Default one hour. */
  minAgeMs?: number;
  /** How many bytes of leftovers are read, stored and removed together. Default 64 MiB. */
  batchBytes?: number;
  /** How long to wait for another holder of the workspace lock; then `WORKSPACE_BUSY`. Default 2 s. */
  lockWaitMs?: number;
  now?: () => number;
}

/**
 * Removes the hidden files writes left in a workspace when their process died (`.<name>.<hex>.wp-tmp`
 * temp files, `.<name>.<hex>.wp-old` parked contents, `<name>.<pid>.wp-tmp`), keeping every content:
 *
 * - It runs under the workspace lock, so no rewind, redo, fork or recovery of the workspace is
 *   applying meanwhile (a live holder: `WORKSPACE_BUSY`, nothing done).
 * - A leftover is kept when a pending journal or a write intent names its file (their recovery
 *   owns it: a parked file goes back to its path), when the pid in its name still runs, or when
 *   it was written or renamed less than `minAgeMs` ago. The last covers writes that record
 *   nothing or have not yet (a rewind's early temp files, plain atomic writes): each uses its
 *   hidden file for one operation, and one that finds it gone fails with an error rather than
 *   report a write that did not happen.
 * - Each content is stored in the blob store and recorded as a save kept aside in the session
 *   (pinned by it; listed by its rewind status, put back with `restorePreserved`) before its file
 *   is removed, in batches of up to 64 MiB; when a batch cannot be stored or recorded, the sweep
 *   stops with that error and none of its files (nor any later one) is removed. A file that changed
 *   since it was read is left.
 *
 * With `dryRun`, reports what would go and changes nothing.
 *
 * @example
 * const report = await sweepLeftovers({ store, blobs, workspace, sessionId, dryRun: true });
 * for (const item of report.swept) console.log(item.path, item.hash);
 */
export async function sweepLeftovers(input: LeftoverSweepInput): Promise<LeftoverSweepReport> {
  const dryRun = input.dryRun ?? false;
  const minAgeMs = input.minAgeMs ?? DEFAULT_LEFTOVER_MIN_AGE_MS;
  const lock = await lockWorkspace(input.store, input.workspace, { purpose: 'sweep of leftover temp files', waitMs: input.lockWaitMs ?? 2000 });
  try {
    const search = findLeftovers(input.workspace);
    const report: LeftoverSweepReport = {
      dryRun,
      minAgeMs,
      sessionId: input.sessionId,
      swept: [],
      kept: [],
      directories: search.directories,
      unreadable: search.unreadable,
    };
    const named = await namedByRecords(input.store);
    const now = (input.now ?? Date.now)();
    const keep = (leftover: Leftover, reason: LeftoverKeepReason, detail: string) => report.kept.push({ ...itemOf(leftover), reason, detail });
    const candidates: Leftover[] = [];
    for (const leftover of search.leftovers) {
      const record = recordNaming(named, leftover);
      if (record) keep(leftover, record.reason, record.detail);
      else if (leftover.pid !== null && liveWriter(leftover.pid, undefined, () => true) !== null)
        keep(leftover, 'writer_running', `process ${leftover.pid}, which its name gives, is still running`);
      else if (now - leftover.changedAtMs < minAgeMs)
        keep(leftover, 'recent', `written or renamed ${Math.max(0, Math.round((now - leftover.changedAtMs) / 1000))} s ago, less than the minimum age`);
      else candidates.push(leftover);
    }
    const directories = new Set<string>();
    // A batch at a time, so a workspace full of large leftovers is never all in memory at once.
    for (const batch of batches(candidates, input.batchBytes ?? BATCH_BYTES)) {
      const chosen: Chosen[] = [];
      for (const leftover of batch) {
        let content: Buffer | null;
        try {
          content = readLeftover(leftover);
        } catch (error) {
          keep(leftover, 'unreadable', `it cannot be read: ${(error as Error).message}`);
          continue;
        }
        if (content === null) keep(leftover, 'changed', 'it changed or went while it was read');
        else chosen.push({ leftover, content, hash: hashContent(content) });
      }
      if (dryRun) {
        for (const { leftover, hash } of chosen) report.swept.push({ ...itemOf(leftover), hash, recordId: null });
        continue;
      }
      if (chosen.length === 0) continue;
      const recordIds = await keepContents(input, chosen);
      for (const [index, { leftover, hash }] of chosen.entries()) {
        const removed = removeLeftover(leftover);
        if (removed === 'removed' || removed === 'gone') {
          report.swept.push({ ...itemOf(leftover), hash, recordId: recordIds[index]! });
          directories.add(leftover.directory);
        } else if (removed === 'failed') keep(leftover, 'remove_failed', 'it could not be removed (its content is kept anyway)');
        else keep(leftover, 'changed', 'it changed after it was read (the content read is kept anyway)');
      }
    }
    await fsyncDirectories(directories);
    return report;
  } finally {
    await lock.release();
  }
}

/** A leftover read, with its content and hash. */
interface Chosen {
  leftover: Leftover;
  content: Buffer;
  hash: string;
}

/** Up to this many bytes of leftovers are read, stored and removed together, unless the caller says otherwise. */
const BATCH_BYTES = 64 * 1024 * 1024;

/** `leftovers` in runs of at most `limit` bytes (a larger one alone). */
function* batches(leftovers: readonly Leftover[], limit: number): Generator<Leftover[]> {
  let batch: Leftover[] = [];
  let bytes = 0;
  for (const leftover of leftovers) {
    if (batch.length > 0 && bytes + leftover.size > limit) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(leftover);
    bytes += leftover.size;
  }
  if (batch.length > 0) yield batch;
}

function itemOf(leftover: Leftover): LeftoverItem {
  return { path: leftover.key, kind: leftover.kind, target: leftover.targetKey, size: leftover.size, changedAt: leftover.changedAtMs };
}

/**
 * Stores the contents (pinned from before they are stored until the session's pin holds them) and
 * records each as a save kept aside in the session, one record per leftover, so each is listed and
 * put back on its own. Returns the record ids in `chosen` order. Throws (nothing removed) when a
 * content cannot be stored or recorded.
 */
async function keepContents(input: LeftoverSweepInput, chosen: readonly Chosen[]): Promise<string[]> {
  const hashes = [...new Set(chosen.map((item) => item.hash))];
  const pin = await input.blobs.pin(hashes, { sessionId: input.sessionId });
  try {
    await input.blobs.putMany(chosen.map((item) => ({ content: item.content })));
    const ids = chosen.map(() => newId('sweep'));
    for (const [index, { leftover, hash }] of chosen.entries()) {
      await input.store.addBlobPins(preservedPinOwner(input.sessionId, ids[index]!), [hash]);
      const { entry } = preservedRecord(input.sessionId, ids[index]!, [{ path: leftover.targetKey ?? leftover.key, hash, mode: leftover.mode }], {
        sweptFrom: { path: leftover.key, kind: leftover.kind },
      });
      await input.store.appendEntry(input.sessionId, entry);
    }
    return ids;
  } finally {
    await pin.release();
  }
}

/** What pending journals and write intents name: files (absolute paths), and whole directories where a journal's paths cannot be resolved. */
interface NamedByRecords {
  files: Map<string, KeepRecord>;
  directories: Array<[directory: string, record: KeepRecord]>;
}

interface KeepRecord {
  reason: LeftoverKeepReason;
  detail: string;
}

/** The record that names `leftover` or the file it was beside, if any. */
function recordNaming(named: NamedByRecords, leftover: Leftover): KeepRecord | undefined {
  const direct = named.files.get(leftover.path) ?? (leftover.targetPath === null ? undefined : named.files.get(leftover.targetPath));
  if (direct) return direct;
  // A cut name: any file of its directory whose name starts as the leftover's does may be its file.
  if (leftover.targetPath === null)
    for (const [path, record] of named.files) if (dirname(path) === leftover.directory && basename(path).startsWith(leftover.target)) return record;
  return named.directories.find(([directory]) => leftover.path.startsWith(directory.endsWith('/') ? directory : `${directory}/`))?.[1];
}

/**
 * The files pending journals and write intents name, with why: their recovery owns the hidden files
 * beside them (a journal's recovery puts a parked file back). A journal whose paths cannot be
 * resolved claims its whole workspace.
 */
async function namedByRecords(store: Store): Promise<NamedByRecords> {
  const named: NamedByRecords = { files: new Map(), directories: [] };
  const addFile = (path: string, record: KeepRecord) => {
    named.files.set(path, record);
    try {
      named.files.set(join(realpathSync.native(dirname(path)), basename(path)), record);
    } catch {
      // its directory is gone: no leftover beside it either
    }
  };
  for (const journal of await store.listJournals({ state: 'pending' })) {
    const record: KeepRecord = { reason: 'journal_pending', detail: `pending journal ${journal.id} names its file; its recovery owns it` };
    let workspace: Workspace;
    try {
      workspace = journalWorkspace(journal);
    } catch {
      named.directories.push([journal.root, record]);
      continue;
    }
    for (const item of journal.items) {
      for (const path of [item.path, item.moveFrom]) {
        if (typeof path !== 'string') continue;
        try {
          const resolved = workspace.resolveKey(path, { followLink: false });
          addFile(resolved.entryPath, record);
          addFile(resolved.realPath, record);
        } catch {
          for (const root of workspace.roots) named.directories.push([root.realDir, record]);
        }
      }
    }
  }
  for (const intent of await store.listWriteIntents()) {
    const record: KeepRecord = { reason: 'write_intent', detail: `write in flight ${intent.id} (process ${intent.pid}) names it; its recovery owns it` };
    for (const file of intent.files) {
      addFile(file.entryPath, record);
      if (file.tempPath !== undefined) addFile(file.tempPath, record);
    }
  }
  return named;
}
