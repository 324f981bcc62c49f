import { lstatSync, readdirSync, readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hashContent, hostId } from '../model/index.js';
import type { BlobStore } from '../blobs/index.js';
import type { NewCheckpoint, Store } from '../store/store.js';
import type { WriteIntent, WriteIntentFile } from '../store/write-intent.js';
import { installIfAbsent } from '../workspace/index.js';
import { openCaptureContext } from './capture-context.js';
import { beginExec, endExec } from './exec-capture.js';
import { declareOwnerGone, ownerGone } from './exec-in-flight.js';
import { SYMLINK_MODE } from './file-capture.js';

/** What {@link recoverWriteIntents} did with the writes a crash left in flight. */
export interface WriteRecoveryReport {
  /** Writes whose files had changed: their checkpoints are recorded now. */
  completed: Array<{ intentId: string; checkpointIds: string[] }>;
  /** Writes that never changed a file (or only pinned blobs): dropped, with their pins. */
  dropped: string[];
  /** Writes of a process that may still be running, left alone. */
  skipped: Array<{ intentId: string; reason: string }>;
}

/**
 * Completes or drops the writes in flight (`Store.recordWriteIntent`) of processes that are gone.
 * A tool or fs write records its intent — the pending checkpoints and what each file holds before
 * and after — before it changes any file, and replaces it with the checkpoints afterwards. After a
 * crash in between, the files tell what happened: all still as before, the intent is dropped;
 * otherwise the change (or part of a move) happened and the checkpoints are recorded, so the
 * overwritten content stays referenced and listed as a change. A file that holds neither is
 * recorded too (a later rewind reports it as changed since), unless the intent's blobs were never
 * indexed, which means no file was touched. Intents that only pin blobs are dropped. Temp files
 * the killed write left beside its target (holding its new content) are removed. A shell command
 * killed during its capture gets its checkpoints from a capture of its session run here (see
 * `beginExec`). `includeLive` is for a caller that knows no process of the store still runs (a pid
 * that answers was reused): every write and capture in flight is then treated as killed. Run by
 * `openWaypoint`, after journal recovery; idempotent.
 *
 * @example
 * const report = await recoverWriteIntents(store, new BlobStore(store));
 * for (const write of report.completed) console.log(`recorded ${write.checkpointIds.join(', ')}`);
 */
export async function recoverWriteIntents(store: Store, blobs: BlobStore, options: { includeLive?: boolean } = {}): Promise<WriteRecoveryReport> {
  const report: WriteRecoveryReport = { completed: [], dropped: [], skipped: [] };
  const killedCaptures = new Map<string, string[]>();
  for (const intent of await store.listWriteIntents()) {
    if (intent.exec !== null) {
      // A shell command's capture: a capture of its session (below) records it; dropped with its session.
      if (intent.sessionId !== null && (await store.findSession(intent.sessionId)) === null) {
        await store.finishWriteIntent(intent.id);
        report.dropped.push(intent.id);
      } else if (intent.sessionId !== null && (ownerGone(intent) || options.includeLive)) {
        // With includeLive the caller knows no process of the store runs: a pid that answers was reused.
        if (options.includeLive) declareOwnerGone([intent.id]);
        killedCaptures.set(intent.sessionId, [...(killedCaptures.get(intent.sessionId) ?? []), intent.id]);
      } else report.skipped.push({ intentId: intent.id, reason: "a shell command's capture in flight: its process may still run" });
      continue;
    }
    const live = liveOwner(intent);
    if (live && !options.includeLive) {
      report.skipped.push({ intentId: intent.id, reason: live });
      continue;
    }
    // A write killed after taking the file aside (to check it) and before linking its own in:
    // the file goes back into its empty name first, so the files tell what happened as usual.
    for (const file of intent.files) putBackTakenFile(file);
    const rows = await completion(store, intent);
    const added = await store.finishWriteIntent(intent.id, rows ?? []);
    for (const file of intent.files) removeTempFiles(file);
    if (rows) report.completed.push({ intentId: intent.id, checkpointIds: added.map((checkpoint) => checkpoint.id) });
    else report.dropped.push(intent.id);
  }
  // Shell commands killed during their capture: a capture of the session now (nothing runs in it)
  // records what changed since their before-scans as their calls' checkpoints.
  for (const [sessionId, intentIds] of killedCaptures) {
    try {
      const context = await openCaptureContext({ store, blobs, sessionId, turnId: null });
      const handle = await beginExec(context);
      await endExec(handle);
      report.completed.push({ intentId: intentIds[0]!, checkpointIds: handle.recovered.map((checkpoint) => checkpoint.id) });
    } catch (error) {
      // The workspace cannot be scanned now (gone, unreadable): the session's next capture tries again.
      for (const intentId of intentIds) report.skipped.push({ intentId, reason: `its session's workspace could not be scanned: ${(error as Error).message}` });
    }
  }
  return report;
}

/** The rows to record for a crashed write, or null when it changed nothing. */
async function completion(store: Store, intent: WriteIntent): Promise<NewCheckpoint[] | null> {
  if (intent.files.length === 0 || intent.checkpoints.length === 0) return null;
  if (intent.sessionId !== null && (await store.findSession(intent.sessionId)) === null) return null;
  const named = new Set<string>();
  for (const row of intent.checkpoints) for (const hash of [row.beforeHash, row.afterHash]) if (hash) named.add(hash);
  // Blobs are indexed before any file changes: if one is missing, the crash came first.
  if ((await store.blobs.has([...named])).size < named.size) return null;
  const states = intent.files.map((file) => ({ file, state: stateOf(file) }));
  if (states.every(({ file, state }) => state.hash === file.beforeHash && state.readable)) return null;
  const rows: NewCheckpoint[] = [];
  for (const row of intent.checkpoints) {
    const now = states.find(({ file }) => file.path === (row.toPath ?? row.path));
    const filled: NewCheckpoint = { ...row };
    if (filled.afterMode == null && now?.state.mode != null && now.state.hash === now.file.afterHash) filled.afterMode = now.state.mode;
    rows.push(filled);
  }
  return rows;
}

function stateOf(file: WriteIntentFile): { hash: string | null; mode: number | null; readable: boolean } {
  try {
    const stats = lstatSync(file.entryPath);
    if (stats.isSymbolicLink())
      return { hash: hashContent(readlinkSync(file.entryPath, { encoding: 'buffer' })), mode: SYMLINK_MODE | (stats.mode & 0o7777), readable: true };
    if (!stats.isFile()) return { hash: null, mode: null, readable: false };
    return { hash: hashContent(readFileSync(file.entryPath)), mode: stats.mode & 0o7777, readable: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { hash: null, mode: null, readable: code === 'ENOENT' || code === 'ENOTDIR' };
  }
}

/**
 * Removes the temp files a killed atomic write of `file` left beside it: named as the workspace's
 * atomic writes name them (`.<name>.<12 hex>.wp-tmp`) and holding exactly the write's new content,
 * and the files its compare-and-replace took aside (`.wp-old`) holding exactly what it read (kept by
 * the write's row, or back on the path), and the temp file its intent names (`tempPath`, however
 * much of it was written), so nothing else (a person's file, another write's temp file) is ever removed.
 */
function removeTempFiles(file: WriteIntentFile): void {
  // The write's own temp file, named in its intent: removed whatever it holds (the writer is gone).
  if (file.tempPath !== undefined && basename(file.tempPath).endsWith('.wp-tmp') && dirname(file.tempPath) === dirname(file.entryPath)) {
    try {
      if (lstatSync(file.tempPath).isFile()) unlinkSync(file.tempPath);
    } catch {
      // never created, or gone already
    }
  }
  const doomed: Array<[string, string | null]> = [
    ...siblings(file, '.wp-tmp').map((path): [string, string | null] => [path, file.afterHash]),
    ...siblings(file, '.wp-old').map((path): [string, string | null] => [path, file.beforeHash]),
  ];
  for (const [path, hash] of doomed) {
    if (hash === null) continue;
    try {
      if (lstatSync(path).isFile() && hashContent(readFileSync(path)) === hash) unlinkSync(path);
    } catch {
      // Gone already, or unreadable: leave it.
    }
  }
}

/**
 * The files a killed compare-and-replace of `file` took aside (`.<name>.<12 hex>.wp-old`) holding
 * exactly what the write read (`beforeHash`): one goes back when the path is empty. Any other is
 * removed once the intent's rows are settled (see {@link removeTempFiles}): its content is on the
 * path again, or the write's row keeps it.
 */
function putBackTakenFile(file: WriteIntentFile): void {
  if (file.beforeHash === null) return;
  for (const path of siblings(file, '.wp-old')) {
    try {
      if (!lstatSync(path).isFile() || hashContent(readFileSync(path)) !== file.beforeHash) continue;
      if (installIfAbsent(path, file.entryPath)) {
        unlinkSync(path);
        return;
      }
    } catch {
      // Gone already, or unreadable: leave it.
    }
  }
}

/** Waypoint's hidden files beside `file` with the given suffix (`.<name>.<12 hex><suffix>`). */
function siblings(file: WriteIntentFile, suffix: '.wp-tmp' | '.wp-old'): string[] {
  const directory = dirname(file.entryPath);
  const prefix = `.${basename(file.entryPath).slice(0, 180)}.`;
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const pattern = new RegExp(`^[0-9a-f]{12}\\${suffix}$`);
  return names.filter((name) => name.startsWith(prefix) && pattern.test(name.slice(prefix.length))).map((name) => join(directory, name));
}

/** Why an intent's writer may still be running (null: it is gone). Any doubt counts as alive. */
function liveOwner(intent: WriteIntent): string | null {
  if (intent.host !== hostId()) return `written on another host (${intent.host}); it may still be writing`;
  if (intent.pid === process.pid) return 'written by this process, which may still be writing';
  try {
    process.kill(intent.pid, 0);
    return `process ${intent.pid}, which wrote it, is still running`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? null : `process ${intent.pid}, which wrote it, may still be running`;
  }
}
