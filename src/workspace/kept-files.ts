import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import { fsyncDirectory, installIfAbsent, prepareDirectory, type AtomicWriteResult, type PreparedFileWrite } from './atomic-write.js';
import { isProcessAlive } from '../model/index.js';
import { errorReason } from './error-reason.js';
import { FileWriteFailedError } from './file-write-failed-error.js';
import { identityOf, sameIdentity, type FileIdentity } from './file-identity.js';
import type { EntryStat, ResolvedPath } from './resolve-path.js';
import { unlinkQuietly } from './quiet-unlink.js';

/** A file kept: where, what it holds, and the lstat that proves it still does. */
interface KeptFile extends FileIdentity {
  path: string;
  hash: string;
  /** Permission bits. */
  mode: number;
  uid: bigint;
  gid: bigint;
}

/** How many files, and how many bytes of them, a process keeps at most (the oldest go first). */
const LIMITS = { files: 512, bytes: 64 * 1024 * 1024 };

/** A kept directory's name: the pid of the process that keeps it, and a random part. */
const OWN_DIRECTORY = /^(\d+)\.[0-9a-f]{12}$/;

/**
 * Files a rewind took off their paths, kept for a while in a private directory beside the store
 * instead of removed — only files whose content the rewind knew without reading them, because
 * this process wrote them durably and their stat proves nobody changed them since (see
 * `writtenStamps`). A later rewind that puts the same content back with the same bits (the redo
 * after an undo, the undo after a redo) links that very file into place (`take`): the file is
 * already written and fsynced, so there is no temp file to create, write and fsync.
 *
 * - A kept file is used only while an lstat shows it exactly as it was kept: the same inode, size,
 *   modification time and change time (which no program can set back), one link. Anything else
 *   (a program that still had it open and wrote into it) makes it a miss, and it is removed, as
 *   it would have been without the cache.
 * - Its content is always in the blob store too (a rewind keeps every content it replaces there
 *   before it touches a file), so removing a kept file loses nothing: a process that dies leaves
 *   its directory to the next process that keeps files beside the same store (its pid is gone),
 *   and the files of a running process go when it exits.
 * - Hard links do not cross file systems: a workspace on another file system than the store keeps
 *   nothing, and every write there makes its temp file as before.
 */
export class KeptFiles {
  private directory: string | null = null;
  private bytes = 0;
  private counter = 0;
  /** In the order kept: the oldest first. */
  private readonly files = new Map<string, KeptFile>();
  private readonly byHash = new Map<string, KeptFile[]>();
  private readonly sameDevice = new Map<string, boolean>();

  /**
   * `root`: the directory the process's own directory goes in (e.g. `<store>.kept`), on the store's
   * file system; `limits`: how many files and bytes to keep at most.
   */
  constructor(
    private readonly root: string,
    private readonly limits: { files: number; bytes: number } = LIMITS,
  ) {}

  /** How many files are kept now. */
  get size(): number {
    return this.files.size;
  }

  /** How many bytes the files kept now hold. */
  get keptBytes(): number {
    return this.bytes;
  }

  /**
   * Keeps the file at `taken` (a hidden name a rewind took it to), which holds `hash` and is still
   * the file `known` describes (checked again here); false when it cannot be kept (another file
   * system, or it changed): the caller removes it as before.
   */
  keep(taken: string, hash: string, known: Omit<FileIdentity, 'ctimeNs'>, rootDir: string): boolean {
    if (!this.onSameDevice(rootDir)) return false;
    const directory = this.ownDirectory();
    if (directory === null) return false;
    const path = join(directory, String(this.counter++));
    try {
      renameSync(taken, path);
    } catch {
      return false;
    }
    // The rename set a new change time: what is checked here is the rest of the known identity.
    const stats = soleLinkStats(path);
    if (stats === null || !sameIdentity(stats, { ...known, ctimeNs: stats.ctimeNs })) {
      unlinkQuietly(path);
      return true;
    }
    const file: KeptFile = { ...identityOf(stats), path, hash, mode: Number(stats.mode & 0o7777n), uid: stats.uid, gid: stats.gid };
    this.add(file);
    while (this.files.size > this.limits.files || this.bytes > this.limits.bytes) this.evict(this.files.values().next().value!);
    return true;
  }

  /**
   * A prepared write of `hash` with permission bits `mode` at `target` made of a kept file, or null
   * when none is kept (or the one kept changed since). Its `sync` has nothing to do; its commits link
   * the kept file into place (see `PreparedFileWrite`); `abort` keeps it again. The target's
   * directory is checked as `prepareFileWrite` checks it (inside the root, no link along it, not
   * protected); `resolvedEntry` as there: the target's lstat taken an instant ago while resolving it.
   */
  take(target: ResolvedPath, hash: string, mode: number, durable: boolean, resolvedEntry?: EntryStat): PreparedFileWrite | null {
    const file = this.byHash.get(hash)?.find((candidate) => candidate.mode === mode);
    if (file === undefined || !this.onSameDevice(target.root.realDir)) return null;
    this.remove(file);
    const stats = soleLinkStats(file.path);
    if (stats === null || !sameIdentity(stats, file) || Number(stats.mode & 0o7777n) !== mode) {
      unlinkQuietly(file.path);
      return null;
    }
    const destination = target.realPath;
    // Resolved an instant ago with its directory found real: checking again would find the same.
    const fresh = resolvedEntry !== undefined && target.lexical === true && target.linkInPath === null;
    let directory: string;
    try {
      directory = prepareDirectory(target, dirname(destination), false, 'write', fresh);
    } catch (error) {
      this.add(file);
      throw error;
    }
    // As root a new file takes the owner of the file it replaces (see `prepareFileWrite`); a kept one must already have it.
    if (process.getuid?.() === 0) {
      const existing = fresh ? resolvedEntry : lstatSync(destination, { throwIfNoEntry: false });
      const uid = BigInt(existing ? existing.uid : process.getuid());
      const gid = BigInt(existing ? existing.gid : (process.getgid?.() ?? 0));
      if (file.uid !== uid || file.gid !== gid) {
        this.add(file);
        return null;
      }
    }
    return this.keptWrite(file, target, directory, durable);
  }

  /**
   * Removes every kept file, and the process's directory once it is empty (a file a rewind in
   * flight has taken stays until that rewind puts it in place or gives it back).
   */
  clear(): void {
    for (const file of this.files.values()) unlinkQuietly(file.path);
    this.files.clear();
    this.byHash.clear();
    this.bytes = 0;
    if (this.directory === null) return;
    try {
      rmdirSync(this.directory);
      this.directory = null;
    } catch {
      // not empty yet: the next clear, or the next process, removes it
    }
  }

  private keptWrite(file: KeptFile, target: ResolvedPath, directory: string, durable: boolean): PreparedFileWrite {
    let state: 'written' | 'committed' | 'aborted' = 'written';
    const result: AtomicWriteResult = { size: Number(file.size), mode: file.mode };
    const check = () => {
      if (state !== 'written') throw new FileWriteFailedError({ path: target.key, operation: 'write', reason: `this prepared write was already ${state}` });
    };
    const finish = (options: { syncDirectory?: boolean }) => {
      state = 'committed';
      if (durable && (options.syncDirectory ?? true)) fsyncDirectory(directory);
      return result;
    };
    const fail = (error: unknown) =>
      error instanceof FileWriteFailedError
        ? error
        : new FileWriteFailedError({ path: target.key, operation: 'write', reason: errorReason(error), cause: error });
    return {
      target,
      directory,
      size: result.size,
      mode: file.mode,
      written: { dev: file.dev, ino: file.ino, size: file.size, mtimeNs: file.mtimeNs },
      // Written and fsynced when this process first wrote it; unchanged since (see `take`).
      sync: () => Promise.resolve(),
      commit: (options = {}) => {
        check();
        try {
          renameSync(file.path, target.realPath);
        } catch (error) {
          throw fail(error);
        }
        return finish(options);
      },
      commitIfAbsent: (options = {}) => {
        check();
        let installed: boolean;
        try {
          installed = installIfAbsent(file.path, target.realPath);
        } catch (error) {
          throw fail(error);
        }
        if (!installed) return null;
        unlinkQuietly(file.path);
        return finish(options);
      },
      abort: () => {
        if (state !== 'written') return;
        state = 'aborted';
        this.add(file);
      },
    };
  }

  private add(file: KeptFile): void {
    this.files.set(file.path, file);
    this.bytes += Number(file.size);
    const same = this.byHash.get(file.hash);
    if (same) same.push(file);
    else this.byHash.set(file.hash, [file]);
  }

  private remove(file: KeptFile): void {
    if (!this.files.delete(file.path)) return;
    this.bytes -= Number(file.size);
    const same = this.byHash.get(file.hash)?.filter((candidate) => candidate !== file) ?? [];
    if (same.length > 0) this.byHash.set(file.hash, same);
    else this.byHash.delete(file.hash);
  }

  private evict(file: KeptFile): void {
    this.remove(file);
    unlinkQuietly(file.path);
  }

  /** Whether files under `rootDir` are on the file system the kept files are (checked once a root). */
  private onSameDevice(rootDir: string): boolean {
    let same = this.sameDevice.get(rootDir);
    if (same === undefined) {
      try {
        mkdirSync(this.root, { recursive: true });
        same = statSync(this.root).dev === statSync(rootDir).dev;
      } catch {
        same = false;
      }
      this.sameDevice.set(rootDir, same);
    }
    return same;
  }

  /** This process's directory, made at first use (removing those of processes gone); null when it cannot be made. */
  private ownDirectory(): string | null {
    if (this.directory !== null) return this.directory;
    try {
      mkdirSync(this.root, { recursive: true });
      removeAbandoned(this.root);
      const directory = join(this.root, `${process.pid}.${randomBytes(6).toString('hex')}`);
      mkdirSync(directory);
      this.directory = directory;
      exiting.add(this);
    } catch {
      return null;
    }
    return this.directory;
  }
}

/**
 * Removes the kept files of processes that died without removing them (their contents are in the
 * store), beside the store at `storeLocation`: what a process does when it first keeps a file, and
 * `gc` does too.
 */
export function removeAbandonedKeptFiles(storeLocation: string): void {
  const root = `${storeLocation}.kept`;
  if (existsSync(root)) removeAbandoned(root);
}

/** The lstat of `path` when it is a regular file with one link (no other name shares it); null otherwise, or when it cannot be read. */
function soleLinkStats(path: string): BigIntStats | null {
  try {
    const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    return stats?.isFile() && stats.nlink === 1n ? stats : null;
  } catch {
    return null;
  }
}

/** The directories of processes no longer running (their files' contents are in the store). */
function removeAbandoned(root: string): void {
  for (const name of readdirSync(root)) {
    const pid = OWN_DIRECTORY.exec(name)?.[1];
    if (pid !== undefined && !isProcessAlive(Number(pid))) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** Kept-file sets with a directory, emptied when the process exits. */
const exiting = new Set<KeptFiles>();
process.once('exit', () => {
  for (const kept of exiting) {
    try {
      kept.clear();
    } catch {
      // left for the next process to remove
    }
  }
});

const byRoot = new Map<string, KeptFiles>();

/** The process's kept files beside the store at `storeLocation` (one set a store). */
export function keptFilesOf(storeLocation: string): KeptFiles {
  const root = `${storeLocation}.kept`;
  let kept = byRoot.get(root);
  if (kept === undefined) {
    kept = new KeptFiles(root);
    byRoot.set(root, kept);
  }
  return kept;
}
