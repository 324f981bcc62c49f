import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { hasErrorCode } from './error-reason.js';

const MAX_LINK_HOPS = 40;

/**
 * The real path of `absolutePath` with every symbolic link resolved, where a tail of the path may
 * not exist yet (the missing part is appended to the real path of its deepest existing ancestor)
 * and a dangling link is followed to where it points. Throws the system error `ELOOP` for link
 * cycles.
 */
export function realPathOf(absolutePath: string, hops = 0): string {
  try {
    return realpathSync.native(absolutePath);
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT', 'ENOTDIR')) throw error;
  }
  const parent = dirname(absolutePath);
  if (parent === absolutePath) return absolutePath;
  const realParent = realPathOf(parent, hops);
  const candidate = join(realParent, basename(absolutePath));
  let isLink = false;
  try {
    isLink = lstatSync(candidate).isSymbolicLink();
  } catch {
    return candidate;
  }
  if (!isLink) return candidate;
  if (hops >= MAX_LINK_HOPS) throw Object.assign(new Error(`Too many symbolic links at ${candidate}`), { code: 'ELOOP' });
  return realPathOf(resolve(realParent, readlinkSync(candidate)), hops + 1);
}

/** Whether `path` is `dir` itself or lies below it (both absolute and normalized). */
export function isInside(dir: string, path: string): boolean {
  if (path === dir) return true;
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return path.startsWith(prefix);
}
