import { readlinkSync } from 'node:fs';
import type { BlobStore } from '../blobs/index.js';
import { modeKind, PRIMARY_ROOT } from '../checkpoint/index.js';
import { WaypointError, type Checkpoint } from '../model/index.js';
import { materializeTree, scanWorkspace, type MaterializeFile, type Workspace } from '../workspace/index.js';
import { ForkStateUnavailableError } from './fork-errors.js';

/** How one path stood at the fork point, when a change after it touched the path. */
type PriorState = { exists: false } | { exists: true; hash: string; mode: number | null };

export interface IsolatedMaterialization {
  dir: string;
  files: number;
  bytes: number;
  /** Paths (`workspace:` keys) whose content came from the blob store instead of the disk. */
  restored: string[];
}

/**
 * Builds the child's own directory as the parent's tracked files were at the fork point: the
 * tracked files of one of the parent's tracked roots (the `workspace` root by default) as they are now (listed by the workspace scanner,
 * so `.gitignore`/`.waypointignore`, `.git` and the store's directory are left out) with every
 * change recorded after the fork point undone from the blob store — each path takes the content and
 * mode it had before its first change after that point. Written with `materializeTree` (modes
 * exact, the directory appears complete or not at all, progress reported per file). The parent's
 * files are only read. Empty directories are not reproduced (like git).
 */
export async function materializeAtForkPoint(input: {
  blobs: BlobStore;
  workspace: Workspace;
  /** The parent's checkpoints after the fork point, oldest first. */
  after: readonly Checkpoint[];
  targetDir: string;
  /** Which tracked root to build (default the primary `workspace` root). */
  root?: string;
  durable?: boolean;
  onProgress?: (done: number, total: number) => void;
}): Promise<IsolatedMaterialization> {
  const rootName = input.root ?? PRIMARY_ROOT;
  const prior = priorStates(input.after);
  const prefix = `${rootName}:`;
  const hashes = [...new Set([...prior].flatMap(([path, state]) => (state.exists && path.startsWith(prefix) ? [state.hash] : [])))];
  let contents = new Map<string, Buffer>();
  try {
    if (hashes.length > 0) contents = await input.blobs.getMany(hashes);
  } catch (error) {
    if (!WaypointError.is(error)) throw error;
    const paths = [...prior].filter(([, state]) => state.exists).map(([path]) => ({ path, checkpointId: '', reason: error.message }));
    throw new ForkStateUnavailableError({ paths, corrupt: WaypointError.is(error, 'BLOB_CORRUPT'), cause: error });
  }

  const scan = scanWorkspace(input.workspace, { roots: [rootName], reportIgnored: false, maxFiles: Number.MAX_SAFE_INTEGER });
  const unreadable = scan.skipped.filter((skipped) => skipped.reason === 'unreadable' && skipped.path.startsWith(prefix) && !prior.has(skipped.path));
  if (unreadable.length > 0) {
    throw new ForkStateUnavailableError({
      paths: unreadable.map((skipped) => ({ path: skipped.path, checkpointId: '', reason: `cannot be read (${skipped.detail ?? 'unreadable'})` })),
    });
  }
  const files: MaterializeFile[] = [];
  for (const [key, entry] of scan.snapshot) {
    if (!key.startsWith(prefix) || prior.has(key)) continue;
    const resolved = input.workspace.resolveKey(key, { followLink: false });
    files.push({
      path: key.slice(prefix.length),
      mode: entry.mode,
      kind: entry.kind,
      // A file is copied from the disk in chunks, so its size is not bounded by a Buffer's.
      content: entry.kind === 'symlink' ? () => readlinkSync(resolved.entryPath, { encoding: 'buffer' }) : { copyFrom: resolved.entryPath },
    });
  }
  const restored: string[] = [];
  for (const [key, state] of prior) {
    if (!state.exists || !key.startsWith(prefix)) continue;
    const content = contents.get(state.hash)!;
    const kind = modeKind(state.mode) === 'symlink' ? 'symlink' : 'file';
    files.push({ path: key.slice(prefix.length), mode: (state.mode ?? 0o644) & 0o7777, kind, content });
    restored.push(key);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const result = materializeTree(input.targetDir, files, {
    durable: input.durable ?? true,
    ...(input.onProgress ? { onProgress: input.onProgress } : {}),
  });
  return { dir: result.dir, files: result.files, bytes: result.bytes, restored: restored.sort() };
}

/**
 * Peels the changes after the fork point newest → oldest: the last assignment a path gets is the
 * state before its first change after the fork point. A rename/move puts the content back at its
 * source and nothing at its target. Changes that kept no content cannot be peeled.
 */
function priorStates(after: readonly Checkpoint[]): Map<string, PriorState> {
  const prior = new Map<string, PriorState>();
  const missing: Array<{ path: string; checkpointId: string; reason: string }> = [];
  for (const checkpoint of [...after].reverse()) {
    if (checkpoint.op === 'mkdir' || checkpoint.op === 'rmdir') continue;
    if (checkpoint.status === 'skipped') {
      missing.push({ path: checkpoint.path, checkpointId: checkpoint.id, reason: `no content was kept (${checkpoint.skipReason ?? 'skipped'})` });
      continue;
    }
    const before: PriorState = checkpoint.beforeHash === null ? { exists: false } : { exists: true, hash: checkpoint.beforeHash, mode: checkpoint.beforeMode };
    prior.set(checkpoint.path, before);
    if ((checkpoint.op === 'rename' || checkpoint.op === 'move') && checkpoint.toPath !== null) prior.set(checkpoint.toPath, { exists: false });
  }
  if (missing.length > 0) throw new ForkStateUnavailableError({ paths: missing });
  return prior;
}
