/**
 * Patches in git's own format, so `git apply` takes what `waypoint diff` prints: a `diff --git`
 * line, the mode lines (`new file mode`, `deleted file mode`, `old mode`/`new mode`), the rename
 * lines, then `--- a/<path>` / `+++ b/<path>` (`/dev/null` for a side that does not exist) and the
 * hunks.
 */

/** The two sides of a change: display paths, and the modes as stored (null: that side does not exist). */
export interface PatchSides {
  from: string;
  to: string;
  before: number | null;
  after: number | null;
}

/** The hunk lines of a unified diff: everything from its first `@@` on. */
export function hunksOf(patch: string): string[] {
  const lines = patch.replace(/\n$/, '').split('\n');
  const first = lines.findIndex((line) => line.startsWith('@@'));
  return first < 0 ? [] : lines.slice(first);
}

/** A stored mode as git writes it: 100644, 100755 (any execute bit) or 120000 (a symbolic link). */
export function gitMode(mode: number | null): string {
  if (mode === null) return '100644';
  if ((mode & 0o170000) === 0o120000) return '120000';
  return mode & 0o111 ? '100755' : '100644';
}

/**
 * The git patch of a change, newline-terminated; null when it says nothing (same path, same mode,
 * no hunks). A created or deleted side counts as a change even without hunks (an empty file).
 */
export function gitPatch(sides: PatchSides, hunks: readonly string[]): string | null {
  const lines = [`diff --git a/${sides.from} b/${sides.to}`];
  const created = sides.before === null;
  const deleted = sides.after === null;
  if (created && deleted) return null;
  if (created) lines.push(`new file mode ${gitMode(sides.after)}`);
  else if (deleted) lines.push(`deleted file mode ${gitMode(sides.before)}`);
  else if (gitMode(sides.before) !== gitMode(sides.after)) lines.push(`old mode ${gitMode(sides.before)}`, `new mode ${gitMode(sides.after)}`);
  if (!created && !deleted && sides.from !== sides.to) lines.push(`rename from ${sides.from}`, `rename to ${sides.to}`);
  if (lines.length === 1 && hunks.length === 0) return null;
  if (hunks.length > 0) lines.push(created ? '--- /dev/null' : `--- a/${sides.from}`, deleted ? '+++ /dev/null' : `+++ b/${sides.to}`, ...hunks);
  return `${lines.join('\n')}\n`;
}

/** The colors a diff is drawn with. */
export interface DiffColors {
  dim(text: string): string;
  bold(text: string): string;
  accent(text: string): string;
  ok(text: string): string;
  error(text: string): string;
}

/**
 * A rendered diff in color: header lines bold, hunk ranges cyan, additions green, removals red, `#`
 * notes dim. Header and hunk lines are told apart by where they stand (a removed line `-- x` is
 * red, not a `---` header).
 */
export function colorDiff(lines: readonly string[], colors: DiffColors): string[] {
  let inHunk = false;
  return lines.map((line) => {
    if (line.startsWith('diff --git ') || line.startsWith('#')) inHunk = false;
    if (line.startsWith('@@')) {
      inHunk = true;
      return colors.accent(line);
    }
    if (line.startsWith('#')) return colors.dim(line);
    if (!inHunk)
      return line.startsWith('diff --git ') || /^(---|\+\+\+|old mode|new mode|new file|deleted file|rename|similarity)/.test(line) ? colors.bold(line) : line;
    if (line.startsWith('+')) return colors.ok(line);
    if (line.startsWith('-')) return colors.error(line);
    if (line.startsWith('\\')) return colors.dim(line);
    return line;
  });
}
