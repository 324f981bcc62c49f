import { lstatSync, type BigIntStats } from 'node:fs';

/** A regular file's identity and times, as an lstat with nanoseconds gave them. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** The identity fields of an lstat taken with nanoseconds. */
export function identityOf(stats: BigIntStats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

/**
 * Whether `stats` shows the entry `identity` describes, unchanged: the same inode and size, the same
 * modification time, and the same change time (which no program can set back, so a write, a
 * restored `touch`, a chmod or a new link since all show).
 */
export function sameIdentity(stats: BigIntStats, identity: FileIdentity): boolean {
  return (
    stats.dev === identity.dev &&
    stats.ino === identity.ino &&
    stats.size === identity.size &&
    stats.mtimeNs === identity.mtimeNs &&
    stats.ctimeNs === identity.ctimeNs
  );
}

/** The lstat of `path` when it is still the regular file `identity` describes (see {@link sameIdentity}); else null. */
export function lstatIfUnchanged(path: string, identity: FileIdentity): BigIntStats | null {
  let stats: BigIntStats;
  try {
    stats = lstatSync(path, { bigint: true });
  } catch {
    return null;
  }
  return stats.isFile() && sameIdentity(stats, identity) ? stats : null;
}
