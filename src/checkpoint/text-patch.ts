import { isUtf8 } from 'node:buffer';
import { formatPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { diffLines, lacksNewline, splitText, type LineRun, type SplitText } from './line-diff.js';

/** Text files above this size get no patch (the blobs are the source of truth; the patch is a view). */
const MAX_PATCH_INPUT_BYTES = 2 * 1024 * 1024;

/** Lines of unchanged context around each change, as git prints them. */
const CONTEXT_LINES = 3;

/** Binary when it holds a NUL byte in its first 8 KB (git's rule) or is not valid UTF-8. */
export function isBinaryContent(content: Buffer): boolean {
  if (content.subarray(0, 8000).includes(0)) return true;
  return !isUtf8(content);
}

/**
 * The unified diff between two versions of a text file (`--- a/<path>` / `+++ b/<path>`, hunks
 * with three lines of context as git prints them), or null when either side is binary or too
 * large. A missing side (created or deleted file) is empty text. The hunks come from a line diff
 * with bounded work (see `diffLines`): minimal for ordinary edits, however many lines they touch;
 * a piece of a pathological change may be replaced whole, and the patch still applies exactly.
 */
export function unifiedPatch(path: string, before: Buffer | null, after: Buffer | null, toPath: string = path): string | null {
  if (!isPatchable(before) || !isPatchable(after)) return null;
  const oldName = before === null ? '/dev/null' : `a/${path}`;
  const newName = after === null ? '/dev/null' : `b/${toPath}`;
  return formatPatch(linePatch(oldName, newName, before?.toString('utf8') ?? '', after?.toString('utf8') ?? ''));
}

/**
 * The structured patch (as the `diff` package's `structuredPatch` gives it, so its `applyPatch` and
 * `reversePatch` take it) between two texts, from the bounded line diff.
 *
 * @example
 * linePatch('a/f', 'b/f', 'one\ntwo\n', 'one\n2\n').hunks[0].lines // [' one', '-two', '+2']
 */
export function linePatch(oldFileName: string, newFileName: string, oldText: string, newText: string, context = CONTEXT_LINES): StructuredPatch {
  const old = splitText(oldText);
  const next = splitText(newText);
  return { oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks: hunksOf(diffLines(old, next), old, next, context) };
}

/** Groups the edit script into hunks: each change with `context` kept lines around it, close changes in one hunk. */
function hunksOf(runs: readonly LineRun[], old: SplitText, next: SplitText, context: number): StructuredPatchHunk[] {
  const hunks: StructuredPatchHunk[] = [];
  let hunk: StructuredPatchHunk | null = null;
  let oldAt = 0;
  let newAt = 0;
  const push = (prefix: ' ' | '-' | '+', text: SplitText, index: number) => {
    hunk!.lines.push(prefix + text.lines[index]!);
    if (lacksNewline(text, index)) hunk!.lines.push('\\ No newline at end of file');
  };
  runs.forEach((run, index) => {
    if (run.kind === 'equal') {
      if (hunk) {
        const last = index === runs.length - 1;
        const kept = !last && run.count <= 2 * context ? run.count : Math.min(run.count, context);
        for (let offset = 0; offset < kept; offset++) push(' ', old, oldAt + offset);
        hunk.oldLines += kept;
        hunk.newLines += kept;
        if (kept < run.count || last) {
          hunks.push(hunk);
          hunk = null;
        }
      }
      oldAt += run.count;
      newAt += run.count;
      return;
    }
    if (!hunk) {
      const lead = Math.min(context, oldAt);
      hunk = { oldStart: oldAt - lead + 1, oldLines: lead, newStart: newAt - lead + 1, newLines: lead, lines: [] };
      for (let offset = lead; offset > 0; offset--) push(' ', old, oldAt - offset);
    }
    if (run.kind === 'remove') {
      for (let offset = 0; offset < run.count; offset++) push('-', old, oldAt + offset);
      hunk.oldLines += run.count;
      oldAt += run.count;
    } else {
      for (let offset = 0; offset < run.count; offset++) push('+', next, newAt + offset);
      hunk.newLines += run.count;
      newAt += run.count;
    }
  });
  if (hunk) hunks.push(hunk);
  return hunks;
}

/** Lines added and removed between two versions of a text file; null when either side is binary. */
export function countLineChanges(before: Buffer | null, after: Buffer | null): { added: number; removed: number } | null {
  if ((before !== null && isBinaryContent(before)) || (after !== null && isBinaryContent(after))) return null;
  const runs = diffLines(splitText(before?.toString('utf8') ?? ''), splitText(after?.toString('utf8') ?? ''));
  let added = 0;
  let removed = 0;
  for (const run of runs) {
    if (run.kind === 'add') added += run.count;
    else if (run.kind === 'remove') removed += run.count;
  }
  return { added, removed };
}

function isPatchable(content: Buffer | null): boolean {
  return content === null || (content.length <= MAX_PATCH_INPUT_BYTES && !isBinaryContent(content));
}
