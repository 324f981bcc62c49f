import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { chmod, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { BlobStore } from '../blobs/index.js';
import { EXEC_SCAN_ENTRY, modeKind, PRIMARY_ROOT, SYMLINK_MODE } from '../checkpoint/index.js';
import { loadStateSnapshot } from '../checkpoint/exec-scan-state.js';
import { InvalidArgumentError, WaypointError, type Checkpoint, type Session } from '../model/index.js';
import type { Store } from '../store/store.js';
import { FileWriteFailedError, fsyncDirectory } from '../workspace/index.js';
import { errorReason } from '../workspace/error-reason.js';
import { checkMaterializeTarget, createDirectories, removeStaleStaging, stagingPathFor } from '../workspace/materialize-target.js';
import { ForkStateUnavailableError } from './fork-errors.js';
import { syncTree } from './fork-copy.js';
import { assertFreshTarget, materializeAtForkPoint, priorStates } from './isolated-workspace.js';
import type { IgnoredMode, IsolatedMaterialization, NotCopiedEntry } from './isolated-report.js';

/** A path's state as the store knows it; `hash: null` when its content was never kept. */
type KnownState = { hash: string | null; mode: number | null; why?: string };

/** Blobs read at once while writing: bounds memory to a batch of files, not the workspace. */
const BATCH = 128;

/** What a fork built from the store alone can never bring back: said in every such report. */
export const NEVER_STORED =
  'ignored paths (node_modules, build output, .env files …), empty directories and git metadata are never captured: reinstall or rebuild them in the fork';

/**
 * How an isolated fork of `parent` builds its directory: from the parent's directory on disk when
 * this machine reaches it (`source` `auto`, the default), else — another machine's session, or
 * `source: 'store'` — from the store alone.
 */
export function materializerFor(store: Store, parent: Pick<Session, 'id' | 'workdir'>, source: 'auto' | 'store' = 'auto') {
  if (source === 'auto' && parent.workdir !== null && isDirectory(parent.workdir)) return materializeAtForkPoint;
  return (input: Parameters<typeof materializeAtForkPoint>[0]) => {
    const { workspace: _workspace, ...rest } = input;
    return materializeFromStore({ ...rest, store, parent });
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Builds the child's directory at the fork point from the store alone, for a machine that cannot
 * see the parent's directory: the parent's latest saved workspace scan (every tracked file and
 * link it saw, with content) with each checkpoint recorded since applied forward, then every
 * change after the fork point undone (as {@link materializeAtForkPoint} does over the disk).
 * Without a saved scan only the files the session's checkpoints touched are known.
 *
 * What the store does not hold is listed, never guessed: tracked files whose content was never
 * kept (too large or unreadable when scanned, a change recorded without content) are in
 * `notCopied` as `not_captured`; ignored paths are never scanned, so nothing says which existed
 * (`fromStore.omitted` says so). Changes made after the parent's last capture are not in the store.
 * The tree is written in a hidden staging directory and renamed into place, as on disk.
 */
export async function materializeFromStore(input: {
  store: Store;
  blobs: BlobStore;
  parent: Pick<Session, 'id'>;
  /** The parent's checkpoints after the fork point, oldest first. */
  after: readonly Checkpoint[];
  targetDir: string;
  root?: string;
  ignored?: IgnoredMode;
  durable?: boolean;
  onProgress?: (done: number, total: number) => void;
}): Promise<IsolatedMaterialization> {
  if (!isAbsolute(input.targetDir))
    throw new InvalidArgumentError({ parameter: 'targetDir', value: input.targetDir, reason: 'must be an absolute directory path' });
  const target = resolve(input.targetDir);
  checkMaterializeTarget(target);
  assertFreshTarget(target);
  const prefix = `${input.root ?? PRIMARY_ROOT}:`;
  const { state, scannedAt } = await currentState(input.store, input.blobs, input.parent.id, prefix);
  const prior = priorStates(input.after);
  const restored: string[] = [];
  for (const [key, before] of prior) {
    if (!key.startsWith(prefix)) continue;
    const path = key.slice(prefix.length);
    if (!before.exists) state.delete(path);
    else {
      state.set(path, { hash: before.hash, mode: before.mode });
      restored.push(key);
    }
  }

  const notCopied: NotCopiedEntry[] = [];
  const jobs: Array<{ path: string; hash: string; mode: number | null }> = [];
  for (const path of [...state.keys()].sort()) {
    const known = state.get(path)!;
    const blocker = ancestorIn(path, state);
    if (blocker !== null) notCopied.push({ path, reason: 'conflict', detail: `${blocker} is not a directory at the fork point` });
    else if (known.hash === null) notCopied.push({ path, reason: 'not_captured', detail: known.why ?? 'its content was never stored' });
    else jobs.push({ path, hash: known.hash, mode: known.mode });
  }

  const parentDir = dirname(target);
  createDirectories(parentDir, target);
  removeStaleStaging(parentDir);
  const staging = stagingPathFor(target);
  const building = join(staging, basename(target));
  let bytes = 0;
  try {
    mkdirSync(building, { recursive: true, mode: 0o755 });
    const made = new Set<string>();
    for (let start = 0; start < jobs.length; start += BATCH) {
      const batch = jobs.slice(start, start + BATCH);
      const contents = await readContents(input.blobs, batch);
      for (const job of batch) {
        const destination = join(building, job.path);
        const dir = dirname(destination);
        if (!made.has(dir)) mkdirSync(dir, { recursive: true, mode: 0o755 });
        made.add(dir);
        const content = contents.get(job.hash)!;
        if (modeKind(job.mode) === 'symlink') await symlink(content, destination);
        else {
          await writeFile(destination, content, { flag: 'wx', mode: 0o600 });
          await chmod(destination, (job.mode ?? 0o644) & 0o7777);
        }
        bytes += content.length;
      }
      input.onProgress?.(Math.min(start + BATCH, jobs.length), jobs.length);
    }
    if (input.durable ?? true) await syncTree(staging);
    renameSync(building, target);
    rmSync(staging, { recursive: true, force: true });
    if (input.durable ?? true) fsyncDirectory(parentDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (WaypointError.is(error)) throw error;
    throw new FileWriteFailedError({ path: target, operation: 'materialize', reason: errorReason(error), cause: error });
  }
  return {
    dir: target,
    files: jobs.length,
    bytes,
    restored: restored.sort(),
    git: null,
    gitSkipped: 'built_from_store',
    ignoredMode: input.ignored ?? 'copy',
    ignored: [],
    notCopied,
    fromStore: { scannedAt, omitted: NEVER_STORED },
  };
}

/** The parent's files as the store last saw them: its latest scan state, then every checkpoint recorded since, forward. */
async function currentState(store: Store, blobs: BlobStore, sessionId: string, prefix: string) {
  const state = new Map<string, KnownState>();
  const [entry] = await store.listEntries(sessionId, { type: EXEC_SCAN_ENTRY, last: 1 });
  const stateHash = entry?.data.stateHash;
  const rootsKey = entry?.data.rootsKey;
  const snapshot = typeof stateHash === 'string' && typeof rootsKey === 'string' ? await loadStateSnapshot(blobs, stateHash, rootsKey) : null;
  const scannedAt = snapshot === null ? null : entry!.createdAt;
  for (const [key, file] of snapshot ?? []) {
    if (!key.startsWith(prefix)) continue;
    const mode = file.kind === 'symlink' ? SYMLINK_MODE | file.mode : file.mode;
    state.set(key.slice(prefix.length), file.hash === null ? { hash: null, mode, why: 'too large or unreadable when scanned' } : { hash: file.hash, mode });
  }
  // A checkpoint in the scan's millisecond is applied again: its after-state is what that scan saw or newer.
  for (const checkpoint of await store.listCheckpoints(sessionId)) {
    if (scannedAt !== null && checkpoint.createdAt < scannedAt) continue;
    if (checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir' || !checkpoint.path.startsWith(prefix)) continue;
    const path = checkpoint.path.slice(prefix.length);
    const moved = (checkpoint.op === 'rename' || checkpoint.op === 'move') && checkpoint.toPath !== null;
    const landing = moved ? checkpoint.toPath!.slice(prefix.length) : path;
    if (moved) state.delete(path);
    if (checkpoint.status === 'skipped')
      state.set(landing, { hash: null, mode: null, why: `a change was recorded without its content (${checkpoint.skipReason ?? 'skipped'})` });
    else if (checkpoint.afterHash === null) state.delete(landing);
    else state.set(landing, { hash: checkpoint.afterHash, mode: checkpoint.afterMode });
  }
  return { state, scannedAt };
}

async function readContents(blobs: BlobStore, batch: ReadonlyArray<{ path: string; hash: string }>): Promise<Map<string, Buffer>> {
  try {
    return await blobs.getMany([...new Set(batch.map((job) => job.hash))]);
  } catch (error) {
    if (!WaypointError.is(error)) throw error;
    const paths = batch.map((job) => ({ path: job.path, checkpointId: '', reason: error.message }));
    throw new ForkStateUnavailableError({ paths, corrupt: WaypointError.is(error, 'BLOB_CORRUPT'), cause: error });
  }
}

/** The nearest ancestor of `path` that is itself a file or link at the fork point, or null. */
function ancestorIn(path: string, entries: ReadonlyMap<string, unknown>): string | null {
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    const ancestor = path.slice(0, slash);
    if (entries.has(ancestor)) return ancestor;
  }
  return null;
}
