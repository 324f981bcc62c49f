import { lstatSync, readFileSync, readlinkSync, renameSync, unlinkSync, type BigIntStats, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BACKUP_SUFFIX, fsyncDirectory, installIfAbsent, prepareDirectory, type PreparedFileWrite } from './atomic-write.js';
import { identityOf, lstatIfUnchanged, type FileIdentity } from './file-identity.js';
import { HIDDEN_NAME_KEPT, tempId } from './temp-id.js';
import { errorReason, hasErrorCode } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { LINK_MODE } from './link-mode.js';
import type { ResolvedPath } from './resolve-path.js';

/**
 * What a path held when {@link replaceIf} took it: nothing, a regular file's bytes and permission
 * bits, or a symbolic link's target text with `LINK_MODE | bits` as its mode (see `isLinkMode`).
 * `hash`: the content's hash, when it is a {@link KnownFile}'s whose hash the caller computed from
 * those very bytes (so a judge need not hash them again); absent otherwise.
 */
export type HeldFile = { exists: false } | { exists: true; content: Buffer; mode: number; hash?: string };

/**
 * A regular file as a caller read it moments ago (its bytes, and its identity and times at that
 * instant, taken before the read and old enough that any write since has changed them): see
 * {@link replaceIf}'s `known`.
 */
export interface KnownFile extends FileIdentity {
  /**
   * Its bytes. Absent when the caller knows the file by `hash` alone (see `writtenStamps`): the
   * judge then gets the hash, and the bytes are read only when the file must be put back or kept.
   */
  content?: Buffer;
  /** The hash of `content`, when the caller computed it (handed on as `HeldFile.hash`). */
  hash?: string;
  /** Whether this process wrote it durably (its bytes fsynced before it went into place): see `KeptFiles`. */
  durable?: boolean;
}

/** A file taken off a path that could not be put back, because someone wrote the path again meanwhile. */
export interface DisplacedFile {
  content: Buffer;
  /** Its mode as a {@link HeldFile}'s: permission bits, or `LINK_MODE | bits` for a symbolic link. */
  mode: number;
  /** Where it still is (a hidden name beside the path): store the content, then remove this file. */
  parkedAt: string;
}

export type ReplaceOutcome =
  /**
   * `taken`: with `keepTaken`, the hidden name the previous file still has (the caller removes it);
   * else null. `takenKnown`: its identity when it was the `known` file, unchanged (its content then
   * the known one); else null.
   */
  | { replaced: true; displaced: null; directory: string; taken: string | null; takenKnown: FileIdentity | null }
  /** `accept` refused what was there; the path holds it again (or a newer file, see `displaced`). */
  | { replaced: false; reason: 'refused'; current: HeldFile; displaced: DisplacedFile | null; directory: string }
  /** Accepted, but a file appeared at the path before the new one was in place: that file stays. */
  | { replaced: false; reason: 'raced'; current: HeldFile; displaced: null; directory: string }
  /** A directory (or a socket, FIFO, device) is at the path: nothing was done. */
  | { replaced: false; reason: 'not_a_file'; current: null; displaced: null; directory: string };

/**
 * Compare-and-replace of one file, safe against other writers that save by rename (as editors
 * and `writeFileAtomic` do): the file at `target` is first renamed to a hidden name beside it
 * (`.<name>.<12 hex>.wp-old`), which takes exactly what was there at that instant; `accept` then
 * judges those bytes. Accepted: `next` is linked into the empty name (a link never replaces a
 * file someone put there meanwhile), or for `next === null` the path stays empty; the taken file
 * is removed — so accept only content the caller has kept. Refused: the taken file is linked back;
 * if someone wrote the path again in between, theirs stays and the taken one is returned as
 * `displaced`, still on disk, for the caller to store. Nothing is ever overwritten that was not
 * accepted. A crash in between leaves the taken file under its hidden name, for recovery to put back.
 *
 * The directory is fsynced only when `durable` (default false: the caller fsyncs `directory`).
 * With `keepTaken`, an accepted file is left under its hidden name (`taken` in the outcome) for the
 * caller to remove, e.g. many at once in the thread pool; until then a crash leaves it for recovery
 * as above.
 *
 * With `known`, the taken file is not read again when it is that very file unchanged: the same
 * inode and size, the same modification time before and after it was taken, and the same change
 * time just before (which no program can set back) — `known.content` is then judged instead, or
 * with no content, only `known.hash` (a judge must go by `HeldFile.hash` when it is given).
 * Anything else is read as usual.
 */
export function replaceIf(
  target: ResolvedPath,
  accept: (held: HeldFile) => boolean,
  next: PreparedFileWrite | null,
  options: { durable?: boolean; keepTaken?: boolean; known?: KnownFile | null } = {},
): ReplaceOutcome {
  const directory = prepareDirectory(target, dirname(target.entryPath), false, next ? 'write' : 'delete');
  const path = join(directory, basename(target.entryPath));
  const fail = (error: unknown): FileWriteFailedError =>
    error instanceof FileWriteFailedError
      ? error
      : new FileWriteFailedError({ path: target.key, operation: next ? 'write' : 'delete', reason: errorReason(error), cause: error });
  const known = options.known ?? null;
  // The change time is taken before the rename, which sets it anew.
  const before = known ? lstatIfUnchanged(path, known) : null;
  const kind = before ? 'file' : kindAt(path);
  if (kind === 'other') return { replaced: false, reason: 'not_a_file', current: null, displaced: null, directory };

  const parked = join(directory, `.${basename(path).slice(0, HIDDEN_NAME_KEPT)}.${tempId()}${BACKUP_SUFFIX}`);
  let held: HeldFile = { exists: false };
  /** The taken file's lstat when it was judged by a known hash, its bytes not read yet. */
  let parkedStats: EntryStats | null = null;
  /** The taken file's lstat when it was the known file. */
  let knownStats: BigIntStats | null = null;
  let taken = false;
  // Nothing there a moment ago: nothing to take. A file saved there since makes the link below
  // fail (`raced`) rather than be replaced.
  if (kind !== 'absent') {
    try {
      renameSync(path, parked);
      taken = true;
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw fail(error);
    }
  }
  let outcome: ReplaceOutcome;
  try {
    if (taken) {
      // One lstat of the taken file serves both questions: what it is, and whether it is the known file.
      const stats = lstatSync(parked, { bigint: true });
      if (!isEntry(stats)) {
        // A directory was renamed onto the path in the instant after it was looked at.
        renameSync(parked, path);
        return { replaced: false, reason: 'not_a_file', current: null, displaced: null, directory };
      }
      if (before && stillTheFile(stats, before)) {
        knownStats = stats;
        held = {
          exists: true,
          content: known!.content ?? NOT_READ,
          mode: Number(stats.mode) & 0o7777,
          ...(known!.hash === undefined ? {} : { hash: known!.hash }),
        };
        // Known by its hash alone: its bytes are read only if it is refused or raced (told or kept).
        if (known!.content === undefined) parkedStats = stats;
      } else held = heldAt(parked, stats);
    }
    const withBytes = (): HeldFile =>
      parkedStats === null ? held : { ...heldAt(parked, parkedStats), ...(held.exists && held.hash ? { hash: held.hash } : {}) };
    if (!accept(held)) {
      held = withBytes();
      const displaced = taken && held.exists ? putBack(parked, path, held) : null;
      outcome = { replaced: false, reason: 'refused', current: held, displaced, directory };
    } else if (next !== null && next.commitIfAbsent({ syncDirectory: false }) === null) {
      next.abort();
      held = withBytes();
      if (taken) unlinkSync(parked);
      outcome = { replaced: false, reason: 'raced', current: held, displaced: null, directory };
    } else {
      const keep = taken && options.keepTaken === true;
      if (taken && !keep) unlinkSync(parked);
      outcome = { replaced: true, displaced: null, directory, taken: keep ? parked : null, takenKnown: keep && knownStats ? identityOf(knownStats) : null };
    }
  } catch (error) {
    // Whatever went wrong, what was taken goes back (unless someone wrote the path since).
    if (taken && kindAt(parked) === 'file') {
      try {
        if (kindAt(path) === 'absent') installIfAbsent(parked, path);
        if (kindAt(path) !== 'absent' && sameFile(parked, path)) unlinkSync(parked);
      } catch {
        // left under its hidden name: recovery puts it back
      }
    }
    throw fail(error);
  }
  if (options.durable) fsyncDirectory(directory);
  return outcome;
}

function putBack(parked: string, path: string, held: HeldFile & { exists: true }): DisplacedFile | null {
  if (installIfAbsent(parked, path)) {
    if (kindAt(parked) === 'file') unlinkSync(parked);
    return null;
  }
  return { content: held.content, mode: held.mode, parkedAt: parked };
}

/** Whether the taken file (`stats`, its lstat) is still the one `before` describes, its size and modification time unchanged. */
function stillTheFile(stats: BigIntStats, before: BigIntStats): boolean {
  return stats.isFile() && stats.dev === before.dev && stats.ino === before.ino && stats.size === before.size && stats.mtimeNs === before.mtimeNs;
}

/** An lstat, with or without nanoseconds. */
type EntryStats = Stats | BigIntStats;

/** A regular file or a symbolic link: what compare-and-replace takes aside and puts back. */
function isEntry(stats: EntryStats): boolean {
  return stats.isFile() || stats.isSymbolicLink();
}

/** The content of a taken entry: a file's bytes, or a link's target text (never followed). */
function heldAt(path: string, stats: EntryStats): HeldFile {
  const bits = Number(stats.mode) & 0o7777;
  if (stats.isSymbolicLink()) return { exists: true, content: readlinkSync(path, { encoding: 'buffer' }), mode: LINK_MODE | bits };
  return { exists: true, content: readFileSync(path), mode: bits };
}

/** The bytes of a file judged by its known hash alone (never handed out: read first, see `withBytes`). */
const NOT_READ = Buffer.alloc(0);

/** `file` stands for a regular file or a symbolic link. */
function kindAt(path: string): 'absent' | 'file' | 'other' {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats === undefined ? 'absent' : isEntry(stats) ? 'file' : 'other';
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return 'absent';
    throw error;
  }
}

function sameFile(a: string, b: string): boolean {
  const first = lstatSync(a);
  const second = lstatSync(b);
  return first.ino === second.ino && first.dev === second.dev;
}

/** What {@link moveIf} did. */
export type MoveIfOutcome =
  | { moved: true; directories: string[] }
  /** Nothing moved: `from` held something `accept` refused (put back), `to` was taken, or the move needs a copy. */
  | { moved: false; reason: 'refused' | 'raced' | 'not_a_file' | 'cross_device'; directories: string[]; displaced?: DisplacedFile };

/**
 * Moves the file at `from` to the empty name `to` only if `accept` takes its bytes, with the same
 * guarantees as {@link replaceIf}: the file is taken off `from` by a rename, judged, then linked at
 * `to` (never over a file someone put there) and its hidden name removed; refused, it goes back.
 * Across file systems nothing is moved (`cross_device`): the caller copies instead.
 * `to`'s missing parent directories are created. Directories are not fsynced (the caller does).
 */
export function moveIf(from: ResolvedPath, to: ResolvedPath, accept: (held: HeldFile) => boolean): MoveIfOutcome {
  const fromDirectory = prepareDirectory(from, dirname(from.entryPath), false, 'move');
  const toDirectory = prepareDirectory(to, dirname(to.entryPath), true, 'move');
  const directories = [fromDirectory, toDirectory];
  const source = join(fromDirectory, basename(from.entryPath));
  const destination = join(toDirectory, basename(to.entryPath));
  if (kindAt(source) !== 'file') return { moved: false, reason: 'not_a_file', directories };
  const parked = join(fromDirectory, `.${basename(source).slice(0, HIDDEN_NAME_KEPT)}.${tempId()}${BACKUP_SUFFIX}`);
  try {
    renameSync(source, parked);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return { moved: false, reason: 'refused', directories };
    throw new FileWriteFailedError({ path: `${from.key} -> ${to.key}`, operation: 'move', reason: errorReason(error), cause: error });
  }
  const stats = lstatSync(parked);
  const held: HeldFile = isEntry(stats) ? heldAt(parked, stats) : { exists: false };
  let installed = false;
  let reason: 'refused' | 'raced' | 'cross_device' = 'refused';
  try {
    if (held.exists && accept(held)) {
      installed = installIfAbsent(parked, destination);
      reason = 'raced';
    }
  } catch (error) {
    if (!hasErrorCode(error, 'EXDEV')) {
      putBackQuietly(parked, source);
      throw new FileWriteFailedError({ path: `${from.key} -> ${to.key}`, operation: 'move', reason: errorReason(error), cause: error });
    }
    reason = 'cross_device';
  }
  if (installed) {
    if (kindAt(parked) === 'file') unlinkSync(parked);
    return { moved: true, directories };
  }
  const stillParked = !putBackQuietly(parked, source);
  return {
    moved: false,
    reason,
    directories,
    ...(stillParked && held.exists ? { displaced: { content: held.content, mode: held.mode, parkedAt: parked } } : {}),
  };
}

/** Puts a parked file back at its name if that is still free; else it stays parked, for recovery. */
function putBackQuietly(parked: string, path: string): boolean {
  try {
    if (!installIfAbsent(parked, path)) return false;
    if (kindAt(parked) === 'file') unlinkSync(parked);
    return true;
  } catch {
    return false; // stays under its hidden name: recovery puts it back
  }
}
