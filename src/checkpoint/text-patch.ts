import { isUtf8 } from 'node:buffer';
import { createTwoFilesPatch, formatPatch, structuredPatch, type StructuredPatch } from 'diff';

/**
 * Longest edit script (lines inserted + deleted) the minimal diff searches for. Myers' diff costs
 * grow with its square; past it the patch replaces the whole file (still a valid unified diff that
 * applies, just not minimal). Keeps capture of a rewritten file at a fraction of a millisecond.
 */
const MAX_EDIT_LENGTH = 256;

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
  const oldName = before === null ? '/dev/null' : `a/${path}`;
  const newName = after === null ? '/dev/null' : `b/${toPath}`;
  const oldText = before?.toString('utf8') ?? '';
  const newText = after?.toString('utf8') ?? '';
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { maxEditLength: MAX_EDIT_LENGTH });
  return patch ?? formatPatch(wholeFilePatch(oldName, newName, oldText, newText));
}

/** A one-hunk patch that removes every old line and adds every new one. */
function wholeFilePatch(oldFileName: string, newFileName: string, oldText: string, newText: string): StructuredPatch {
  const old = splitLines(oldText);
  const next = splitLines(newText);
  const side = (prefix: '-' | '+', text: { lines: string[]; finalNewline: boolean }) => [
    ...text.lines.map((line) => prefix + line),
    ...(text.lines.length > 0 && !text.finalNewline ? ['\\ No newline at end of file'] : []),
  ];
  return {
    oldFileName,
    newFileName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: old.lines.length === 0 ? 0 : 1,
        oldLines: old.lines.length,
        newStart: next.lines.length === 0 ? 0 : 1,
        newLines: next.lines.length,
        lines: [...side('-', old), ...side('+', next)],
      },
    ],
  };
}

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const lines = text.split('\n');
  const finalNewline = text.endsWith('\n');
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

/** Lines added and removed between two versions of a text file; null when either side is binary. */
export function countLineChanges(before: Buffer | null, after: Buffer | null): { added: number; removed: number } | null {
  if ((before !== null && isBinaryContent(before)) || (after !== null && isBinaryContent(after))) return null;
  const oldText = before?.toString('utf8') ?? '';
  const newText = after?.toString('utf8') ?? '';
  const patch =
    structuredPatch('a', 'b', oldText, newText, undefined, undefined, { context: 0, maxEditLength: MAX_EDIT_LENGTH * 8 }) ??
    wholeFilePatch('a', 'b', oldText, newText);
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
