import { lstatSync, type BigIntStats, type Stats } from 'node:fs';
import { lstatIfUnchanged, type FileIdentity } from './file-identity.js';

/** A temp file's identity and modification time right after its bytes were written (see `PreparedFileWrite.written`). */
export type WrittenIdentity = Omit<FileIdentity, 'ctimeNs'>;

/** A file this process wrote, as it stood once in place: what it holds, and the stat that proves it still does. */
export interface WrittenStamp extends FileIdentity {
  /** The hash of the bytes written. */
  hash: string;
  /** Permission bits. */
  mode: number;
  /** Whether its bytes were fsynced before it went into place (a durable write's). */
  durable: boolean;
}

/** Stamps kept at most; the oldest go first (a miss only means a file is read again). */
const MAX_STAMPS = 100_000;

/**
 * The files this process's rewinds and tool writes put in place, so the next rewind of the same
 * files (an undo after the agent's turn or after a redo, a redo after an undo) knows their content
 * by one lstat instead of reading and hashing them.
 *
 * A stamp is trusted only when it proves the bytes are still ours, by the rule git uses for its
 * index made strict:
 * - it names the very inode the temp file was (a save by rename, as editors and agents make, is a
 *   new inode), with the size and modification time the write left;
 * - when it was recorded, the file's change time was already later than that modification time:
 *   the file went into place in a later clock tick than its bytes were written, so any write into
 *   it since — even one of the same size — stamps a later modification time;
 * - its change time is still the one recorded, which no program can set back: a `touch` restoring
 *   the time, a chmod, a new link all change it.
 * A file system that stamps whole seconds is never trusted (a later write could share the second).
 * Anything else is read as before; a stamp that no longer matches is forgotten.
 */
class WrittenStamps {
  private readonly stamps = new Map<string, WrittenStamp>();

  /**
   * The stamp that says the file at `path` (an entry path, never followed) holds `hash`, written
   * as `written` — taken once it is in place; null unless the file there now is that write
   * untouched and went into place a clock tick after its bytes were written. Not kept yet: see
   * {@link keep}.
   */
  stampOf(path: string, hash: string, written: WrittenIdentity, durable = false): WrittenStamp | null {
    let stats: BigIntStats;
    try {
      stats = lstatSync(path, { bigint: true });
    } catch {
      return null;
    }
    const ours = stats.isFile() && stats.dev === written.dev && stats.ino === written.ino && stats.size === written.size && stats.mtimeNs === written.mtimeNs;
    if (!ours || stats.ctimeNs <= stats.mtimeNs || wholeSecond(stats.mtimeNs) || wholeSecond(stats.ctimeNs)) return null;
    return { ...written, hash, mode: Number(stats.mode & 0o7777n), ctimeNs: stats.ctimeNs, durable };
  }

  /** Stamps the file at `path` as holding `hash`, written as `written`, when it can be proved (see {@link stampOf}); else forgets it. */
  record(path: string, hash: string, written: WrittenIdentity | null, durable = false): void {
    this.keep(path, written === null ? null : this.stampOf(path, hash, written, durable));
  }

  /** Keeps `stamp` for `path` (null: forgets what was kept for it). */
  keep(path: string, stamp: WrittenStamp | null): void {
    this.stamps.delete(path);
    if (stamp === null) return;
    if (this.stamps.size >= MAX_STAMPS) this.stamps.delete(this.stamps.keys().next().value!);
    this.stamps.set(path, stamp);
  }

  /**
   * The stamp of the file at `path` when it holds `hash` as this process wrote it (see the class);
   * null otherwise. `entry`: the path's lstat taken a moment ago, for a quick refusal before the
   * exact one.
   */
  holding(path: string, hash: string, entry?: Stats | null): WrittenStamp | null {
    const stamp = this.stamps.get(path);
    if (stamp === undefined || stamp.hash !== hash) return null;
    // (The number-typed lstat's inode may be rounded: only the exact one below compares it.)
    if (entry && (!entry.isFile() || BigInt(entry.size) !== stamp.size)) {
      this.stamps.delete(path);
      return null;
    }
    const stats = lstatIfUnchanged(path, stamp);
    if (stats === null || Number(stats.mode & 0o7777n) !== stamp.mode) {
      this.stamps.delete(path);
      return null;
    }
    return stamp;
  }

  /** Forgets every stamp (for tests). */
  clear(): void {
    this.stamps.clear();
  }
}

function wholeSecond(ns: bigint): boolean {
  return ns % 1_000_000_000n === 0n;
}

/** The process's stamps of the files its rewinds and tool writes put in place (see {@link WrittenStamps}). */
export const writtenStamps = new WrittenStamps();
