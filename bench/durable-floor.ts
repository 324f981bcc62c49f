/**
 * The disk's floor for an undo: the same file changes made durable with no Waypoint code at all —
 * every target file's content written to a temp file beside it and fsynced, together with one
 * journal-sized file fsynced (the journal a crash-safe undo syncs before touching a file), then
 * each temp file renamed over its path (removed files unlinked) and every directory fsynced once.
 * All fsyncs run at once in the libuv thread pool; no hashing, no compare, no database.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, symlink, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** One path the undo changes: its content and mode at the target commit, or null when the target has no file there. */
export interface FloorChange {
  path: string;
  content: Buffer | null;
  mode: string | null;
}

/** The paths that differ between `from` and `to` in `repo`, with `to`'s content (read with git, before any timing). */
export function floorChanges(repo: string, from: string, to: string): FloorChange[] {
  const names = execFileSync('git', ['diff', '--name-only', '--no-renames', '-z', from, to], { cwd: repo }).toString('utf8').split('\0').filter(Boolean);
  const tree = new Map<string, string>();
  for (const line of execFileSync('git', ['ls-tree', '-r', '-z', to], { cwd: repo, maxBuffer: 64 * 1024 * 1024 })
    .toString('utf8')
    .split('\0')) {
    const tab = line.indexOf('\t');
    if (tab > 0) tree.set(line.slice(tab + 1), line.slice(0, tab).split(' ')[0]!);
  }
  return names.map((path) => {
    const mode = tree.get(path) ?? null;
    const content = mode === null ? null : execFileSync('git', ['cat-file', 'blob', `${to}:${path}`], { cwd: repo, maxBuffer: 64 * 1024 * 1024 });
    return { path, content, mode };
  });
}

async function writeSynced(path: string, content: Uint8Array, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Applies `changes` to the work tree at `root` durably, as described above; `journalBytes` sizes
 * the journal file (written to `journalDir`).
 */
export async function durableFloor(root: string, changes: readonly FloorChange[], journalDir: string, journalBytes: number): Promise<void> {
  const suffix = randomBytes(6).toString('hex');
  const journal = join(journalDir, `journal.${suffix}`);
  const writes = changes.filter((change) => change.content !== null && change.mode !== '120000');
  const temp = (change: FloorChange) => join(root, dirname(change.path), `.floor.${suffix}.${change.path.replaceAll('/', '_')}`);
  await Promise.all(writes.map((change) => mkdir(join(root, dirname(change.path)), { recursive: true })));
  await Promise.all([
    writeSynced(journal, randomBytes(journalBytes), 0o644),
    ...writes.map((change) => writeSynced(temp(change), change.content!, change.mode === '100755' ? 0o755 : 0o644)),
  ]);
  const directories = new Set<string>();
  for (const change of changes) {
    const path = join(root, change.path);
    directories.add(dirname(path));
    if (change.content === null) await unlink(path).catch(() => undefined);
    else if (change.mode === '120000') {
      await rm(path, { force: true });
      await symlink(change.content.toString('utf8'), path);
    } else await rename(temp(change), path);
  }
  await Promise.all([...directories].map(fsyncDirectory));
  await unlink(journal);
}
