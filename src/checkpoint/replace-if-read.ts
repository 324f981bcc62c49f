import { deletePath, replaceIf, unlinkQuietly, type HeldFile, type PreparedFileWrite, type ResolvedPath } from '../workspace/index.js';
import type { CapturedEntry } from './file-capture.js';
import { FileChangedDuringWriteError } from './file-changed-during-write-error.js';

/**
 * Puts a prepared write (or, for `next === null`, a deletion) in place only if the path still holds
 * what was read before the write began (`before`, as captured). The file there is taken aside by a
 * rename, compared, and the new content linked into the empty name, so a save that lands at any
 * instant is never overwritten: it is found and put back (or, landing after the take, it simply
 * stays), and the write is refused with {@link FileChangedDuringWriteError}, nothing changed. A kill
 * in between leaves the taken file under its hidden name beside the path (`.<name>.<hex>.wp-old`),
 * which write recovery puts back. The directory is fsynced when `durable`.
 */
export function replaceIfRead(target: ResolvedPath, before: CapturedEntry, next: PreparedFileWrite | null, options: { durable?: boolean } = {}): void {
  // A symlink (dangling, or one being deleted) has nothing to take aside: it is changed as before.
  if (before.exists && before.kind === 'symlink') {
    if (next) next.commit({ syncDirectory: options.durable ?? false });
    else deletePath(target, { durable: options.durable ?? false });
    return;
  }
  const outcome = replaceIf(target, (held) => sameAsRead(held, before), next, options);
  if (outcome.replaced) return;
  // A second save landed while the first was taken aside: the newer one is in place, and the
  // older one is what the person themselves replaced (as it would be without this write).
  if (outcome.displaced) unlinkQuietly(outcome.displaced.parkedAt);
  throw new FileChangedDuringWriteError({ path: target.key });
}

function sameAsRead(held: HeldFile, before: CapturedEntry): boolean {
  if (!before.exists) return !held.exists;
  if (!held.exists || before.kind !== 'file') return false;
  // Contents over the size limit are not read up front (nor kept): the size is all there is to compare.
  if (before.content === null) return held.content.length === before.size;
  return held.content.equals(before.content);
}
