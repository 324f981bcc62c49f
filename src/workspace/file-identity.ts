import { lstatSync, type BigIntStats } from 'node:fs';

/** A regular file's identity and times, as an lstat with nanoseconds gave them. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/**
 * The lstat of `path` when it is still the regular file `identity` describes: the same inode and
 * size, the same modification time, and the same change time (which no program can set back, so
 * a write, a restored `touch`, a chmod or a new link since all show); else null.
 */
export function lstatIfUnchanged(path: string, identity: FileIdentity): BigIntStats | null {
  let stats: BigIntStats;
  try {
    stats = lstatSync(path, { bigint: true });
  } catch {
    return null;
  }
  const same =
    stats.isFile() &&
    stats.dev === identity.dev &&
    stats.ino === identity.ino &&
    stats.size === identity.size &&
    stats.mtimeNs === identity.mtimeNs &&
    stats.ctimeNs === identity.ctimeNs;
  return same ? stats : null;
}
