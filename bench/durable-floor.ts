/**
 * The disk's floor for an undo: the same file changes made durable with no Waypoint code at all —
 * every target file's content written to a temp file beside it and fsynced, together with one
 * journal-sized file fsynced (the journal a crash-safe undo syncs before touching a file), then
 * each temp file renamed over its path (removed files unlinked) and every directory fsynced once.
 * The opens, writes and fsyncs run all at once in the libuv thread pool; no hashing, no compare,
 * no database.
 *
 * With `compareAndReplace`, each path is changed the way a write that never overwrites someone's
 * save must change it when the system offers no "rename unless the name is taken" (Node has no
 * `renameat2`): the path is looked at, its file renamed aside (which takes exactly what was there),
 * the new file linked into the empty name (a link fails rather than replace a file saved
 * meanwhile), its temp name removed, and the aside files removed in the thread pool while the
 * directories are fsynced. Still no hashing, no reading back, no database: the floor of a safe undo.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fsync, linkSync, lstatSync, mkdirSync, open, openSync, renameSync, rmSync, symlinkSync, unlink, unlinkSync, write } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * One path the undo changes: its content and mode at the target commit (null content: the target
 * has no file there), or, for a file the target has at another path unchanged, that path (`from`):
 * a rename back, as a rewind makes it.
 */
export interface FloorChange {
  path: string;
  content: Buffer | null;
  mode: string | null;
  from: string | null;
}

/** The paths that differ between `from` and `to` in `repo`, with `to`'s content (read with git, before any timing). */
export function floorChanges(repo: string, from: string, to: string): FloorChange[] {
  const fields = execFileSync('git', ['diff', '--name-status', '-M100%', '-z', from, to], { cwd: repo }).toString('utf8').split('\0');
  const tree = new Map<string, string>();
  for (const line of execFileSync('git', ['ls-tree', '-r', '-z', to], { cwd: repo, maxBuffer: 64 * 1024 * 1024 })
    .toString('utf8')
    .split('\0')) {
    const tab = line.indexOf('\t');
    if (tab > 0) tree.set(line.slice(tab + 1), line.slice(0, tab).split(' ')[0]!);
  }
  const changes: FloorChange[] = [];
  for (let index = 0; index < fields.length - 1; ) {
    const status = fields[index++]!;
    const path = fields[index++]!;
    if (status.startsWith('R')) {
      changes.push({ path: fields[index++]!, content: null, mode: null, from: path });
      continue;
    }
    const mode = tree.get(path) ?? null;
    const content = mode === null ? null : execFileSync('git', ['cat-file', 'blob', `${to}:${path}`], { cwd: repo, maxBuffer: 64 * 1024 * 1024 });
    changes.push({ path, content, mode, from: null });
  }
  return changes;
}

const pool = {
  open: promisify(open),
  write: promisify(write),
  fsync: promisify(fsync),
  unlink: promisify(unlink),
};

/** A new file with `content`, fsynced: open, write, fsync in the thread pool (the only waits), close. */
async function writeSynced(path: string, content: Uint8Array, mode: number): Promise<void> {
  const fd = await pool.open(path, 'wx', mode);
  try {
    for (let offset = 0; offset < content.length; ) offset += (await pool.write(fd, content, offset, content.length - offset, null)).bytesWritten;
    await pool.fsync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A directory fsynced in the thread pool (opened and closed on this thread, as they cost next to nothing). */
async function fsyncDirectory(path: string): Promise<void> {
  const fd = openSync(path, 'r');
  try {
    await pool.fsync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Applies `changes` to the work tree at `root` durably, as described above; `journalBytes` sizes
 * the journal file (written to `journalDir`). Missing directories are created first; the renames,
 * unlinks and links run on this thread (they wait on no disk).
 */
export async function durableFloor(
  root: string,
  changes: readonly FloorChange[],
  journalDir: string,
  journalBytes: number,
  options: { compareAndReplace?: boolean } = {},
): Promise<void> {
  const suffix = randomBytes(6).toString('hex');
  const journal = join(journalDir, `journal.${suffix}`);
  const writes = changes.filter((change) => change.content !== null && change.mode !== '120000');
  const temp = (change: FloorChange) => join(root, dirname(change.path), `.floor.${suffix}.${change.path.replaceAll('/', '_')}`);
  for (const change of changes) if (change.content !== null) mkdirSync(join(root, dirname(change.path)), { recursive: true });
  await Promise.all([
    writeSynced(journal, randomBytes(journalBytes), 0o644),
    ...writes.map((change) => writeSynced(temp(change), change.content!, change.mode === '100755' ? 0o755 : 0o644)),
  ]);
  const directories = new Set<string>();
  const aside: string[] = [];
  for (const change of changes) {
    const path = join(root, change.path);
    directories.add(dirname(path));
    if (change.from !== null) {
      directories.add(dirname(join(root, change.from)));
      mkdirSync(dirname(path), { recursive: true });
      if (options.compareAndReplace) replaceSafely(join(root, change.from), path, null, aside, `${suffix}m`);
      else renameSync(join(root, change.from), path);
    } else if (change.content === null) {
      if (options.compareAndReplace) replaceSafely(path, null, null, aside, suffix);
      else rmSync(path, { force: true });
    } else if (change.mode === '120000') {
      rmSync(path, { force: true });
      symlinkSync(change.content.toString('utf8'), path);
    } else if (options.compareAndReplace) replaceSafely(path, path, temp(change), aside, suffix);
    else renameSync(temp(change), path);
  }
  await Promise.all([...aside.map((path) => pool.unlink(path)), ...[...directories].map(fsyncDirectory)]);
  unlinkSync(journal);
}

/**
 * One compare-and-replace with the fewest calls that keep a concurrent save: `from` looked at and
 * renamed aside (kept in `aside` for removal), then `next` (or, for a move, the file taken aside)
 * linked in at `to` and its old name removed.
 */
function replaceSafely(from: string, to: string | null, next: string | null, aside: string[], suffix: string): void {
  const taken = join(dirname(from), `.aside.${suffix}.${from.length}.${aside.length}`);
  // A file the undo creates again has nothing at its path to take aside.
  const present = lstatSync(from, { throwIfNoEntry: false }) !== undefined;
  if (present) renameSync(from, taken);
  if (to === null) {
    if (present) aside.push(taken);
    return;
  }
  if (next === null) {
    linkSync(taken, to);
    unlinkSync(taken);
    return;
  }
  linkSync(next, to);
  unlinkSync(next);
  if (present) aside.push(taken);
}
