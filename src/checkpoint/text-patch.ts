import { isUtf8 } from 'node:buffer';
import { createTwoFilesPatch, structuredPatch } from 'diff';

/**
 * Longest edit script the patch builder searches before giving up (the patch is then null; the
 * before/after blobs still hold everything). Keeps capture fast on rewritten multi-megabyte files.
 */
const MAX_EDIT_LENGTH = 20_000;

/** Text files above this size get no patch (the blobs are the source of truth; the patch is a view). */
const MAX_PATCH_INPUT_BYTES = 2 * 1024 * 1024;

/** Binary when it holds a NUL byte in its first 8 KB (git's rule) or is not valid UTF-8. */
export function isBinaryContent(content: Buffer): boolean {
  if (content.subarray(0, 8000).includes(0)) return true;
  return !isUtf8(content);
}

/**
 * The unified diff between two versions of a text file (`--- a/<path>` / `+++ b/<path>`, as
 * `diff`'s `createTwoFilesPatch` writes it), or null when either side is binary, too large, or the
 * change is too big to diff quickly. A missing side (created or deleted file) is empty text.
 */
export function unifiedPatch(path: string, before: Buffer | null, after: Buffer | null, toPath: string = path): string | null {
  if (!isPatchable(before) || !isPatchable(after)) return null;
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    after === null ? '/dev/null' : `b/${toPath}`,
    before?.toString('utf8') ?? '',
    after?.toString('utf8') ?? '',
    undefined,
    undefined,
    { maxEditLength: MAX_EDIT_LENGTH },
  );
  return patch ?? null;
}

/** Lines added and removed between two versions of a text file; null when either side is binary. */
export function countLineChanges(before: Buffer | null, after: Buffer | null): { added: number; removed: number } | null {
  if ((before !== null && isBinaryContent(before)) || (after !== null && isBinaryContent(after))) return null;
  const patch = structuredPatch('a', 'b', before?.toString('utf8') ?? '', after?.toString('utf8') ?? '', undefined, undefined, { context: 0 });
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

function isPatchable(content: Buffer | null): boolean {
  return content === null || (content.length <= MAX_PATCH_INPUT_BYTES && !isBinaryContent(content));
}
