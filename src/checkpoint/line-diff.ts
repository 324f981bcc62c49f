/**
 * A line diff with bounded work: the shortest edit script (Myers) where it can be found within a
 * budget, else the two texts are split at lines that occur once in each (patience anchors) and the
 * pieces between them are diffed the same way. A piece with no anchor left, or met after the budget
 * ran out, is replaced whole: still a correct edit script, only not the smallest. The work is
 * counted in steps, not timed, so the same inputs always give the same script.
 */

/** A run of the edit script: lines kept, removed from the old text, or added from the new one. */
export interface LineRun {
  kind: 'equal' | 'remove' | 'add';
  count: number;
}

/** How deep pieces are split at anchors before a piece is replaced whole (keeps the stack small). */
const MAX_SPLIT_DEPTH = 64;

/** Steps (diagonals visited plus lines compared) a whole diff may take: a few hundred ms at most. */
const WORK_BUDGET = 30_000_000;

/**
 * Longest edit script one Myers search looks for. Its trace holds about this squared integers
 * (4 MB at 1,000), and longer scripts are first split at anchors.
 */
const MAX_MYERS_EDIT = 1000;

/** A text as lines without their `\n`, and whether its last line has one. */
export interface SplitText {
  lines: string[];
  finalNewline: boolean;
}

/** Splits a text into lines (an empty text has none). */
export function splitText(text: string): SplitText {
  if (text === '') return { lines: [], finalNewline: true };
  const lines = text.split('\n');
  const finalNewline = text.endsWith('\n');
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

/** True for the last line of a text that does not end with a newline. */
export function lacksNewline(text: SplitText, index: number): boolean {
  return !text.finalNewline && index === text.lines.length - 1;
}

/**
 * The edit script from `before` to `after`, lines compared whole (a last line without its newline
 * differs from the same line with one). The common start and end are matched as strings first, so
 * an ordinary edit of a large file costs little more than comparing it.
 */
export function diffLines(before: SplitText, after: SplitText): LineRun[] {
  const same = (i: number, j: number) => before.lines[i] === after.lines[j] && lacksNewline(before, i) === lacksNewline(after, j);
  const n = before.lines.length;
  const m = after.lines.length;
  let prefix = 0;
  while (prefix < n && prefix < m && same(prefix, prefix)) prefix++;
  let suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix && same(n - 1 - suffix, m - 1 - suffix)) suffix++;
  const ids = new Map<string, number>();
  const intern = (text: SplitText, from: number, to: number) => {
    const out = new Int32Array(to - from);
    for (let index = from; index < to; index++) {
      const line = text.lines[index]!;
      let id = ids.get(line);
      if (id === undefined) ids.set(line, (id = ids.size));
      // A last line without its newline gets an id of its own kind (negative), equal only to its like.
      out[index - from] = lacksNewline(text, index) ? ~id : id;
    }
    return out;
  };
  const a = intern(before, prefix, n - suffix);
  const b = intern(after, prefix, m - suffix);
  const runs = new RunList();
  runs.push('equal', prefix);
  diffRange({ a, b, budget: WORK_BUDGET }, 0, a.length, 0, b.length, runs, 0);
  runs.push('equal', suffix);
  return runs.runs;
}

interface Problem {
  a: Int32Array;
  b: Int32Array;
  budget: number;
}

class RunList {
  readonly runs: LineRun[] = [];
  push(kind: LineRun['kind'], count: number): void {
    if (count === 0) return;
    const last = this.runs.at(-1);
    if (last?.kind === kind) last.count += count;
    else this.runs.push({ kind, count });
  }
  /** A changed block: its removals first, then its additions (as git prints them). */
  replace(removed: number, added: number): void {
    const last = this.runs.at(-1);
    if (last?.kind === 'add' && removed > 0) {
      // Keep removals before additions when two changed blocks meet.
      const before = this.runs.at(-2);
      if (before?.kind === 'remove') before.count += removed;
      else this.runs.splice(this.runs.length - 1, 0, { kind: 'remove', count: removed });
      last.count += added;
      return;
    }
    this.push('remove', removed);
    this.push('add', added);
  }
}

function diffRange(problem: Problem, aLo: number, aHi: number, bLo: number, bHi: number, out: RunList, depth: number): void {
  const { a, b } = problem;
  let prefix = 0;
  while (aLo + prefix < aHi && bLo + prefix < bHi && a[aLo + prefix] === b[bLo + prefix]) prefix++;
  let suffix = 0;
  while (aHi - suffix > aLo + prefix && bHi - suffix > bLo + prefix && a[aHi - suffix - 1] === b[bHi - suffix - 1]) suffix++;
  problem.budget -= prefix + suffix;
  out.push('equal', prefix);
  aLo += prefix;
  bLo += prefix;
  aHi -= suffix;
  bHi -= suffix;
  if (aLo === aHi || bLo === bHi) out.replace(aHi - aLo, bHi - bLo);
  else if (!myers(problem, aLo, aHi, bLo, bHi, out) && (depth >= MAX_SPLIT_DEPTH || !patience(problem, aLo, aHi, bLo, bHi, out, depth)))
    out.replace(aHi - aLo, bHi - bLo);
  out.push('equal', suffix);
}

/** The shortest edit script, when it is at most `MAX_MYERS_EDIT` long and fits the budget; false otherwise (nothing written). */
function myers(problem: Problem, aLo: number, aHi: number, bLo: number, bHi: number, out: RunList): boolean {
  const { a, b } = problem;
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.min(MAX_MYERS_EDIT, n + m);
  const offset = maxD + 1;
  const v = new Int32Array(2 * maxD + 3);
  const trace: Int32Array[] = [];
  let work = 0;
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      const snakeStart = x;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
        x++;
        y++;
      }
      work += 1 + x - snakeStart;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        problem.budget -= work;
        writeTrace(trace, d, n, m, out);
        return true;
      }
    }
    if (work > problem.budget) break;
  }
  problem.budget -= work;
  return false;
}

/** Walks the Myers trace back from the end, then writes the runs in order. */
function writeTrace(trace: Int32Array[], last: number, n: number, m: number, out: RunList): void {
  const steps: Array<LineRun['kind']> = [];
  let x = n;
  let y = m;
  for (let d = last; d > 0; d--) {
    const v = trace[d]!;
    const at = (k: number) => v[k + d]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    const startX = down ? previousX : previousX + 1;
    while (x > startX) {
      steps.push('equal');
      x--;
      y--;
    }
    steps.push(down ? 'add' : 'remove');
    x = previousX;
    y = previousY;
  }
  while (x > 0) {
    steps.push('equal');
    x--;
  }
  // Steps come last-first; within a changed block keep removals before additions.
  let index = steps.length - 1;
  while (index >= 0) {
    if (steps[index] === 'equal') {
      let count = 0;
      while (index >= 0 && steps[index] === 'equal') {
        count++;
        index--;
      }
      out.push('equal', count);
      continue;
    }
    let removed = 0;
    let added = 0;
    while (index >= 0 && steps[index] !== 'equal') {
      if (steps[index] === 'add') added++;
      else removed++;
      index--;
    }
    out.replace(removed, added);
  }
}

/**
 * Splits at lines that occur exactly once on each side, in an order both sides agree on (the
 * longest increasing run of their positions), and diffs the pieces between. False when there is no
 * such line (nothing written).
 */
function patience(problem: Problem, aLo: number, aHi: number, bLo: number, bHi: number, out: RunList, depth: number): boolean {
  const { a, b } = problem;
  problem.budget -= 2 * (aHi - aLo + bHi - bLo);
  const counts = new Map<number, { a: number; b: number; at: number; bt: number }>();
  for (let i = aLo; i < aHi; i++) {
    const entry = counts.get(a[i]!);
    if (entry) entry.a++;
    else counts.set(a[i]!, { a: 1, b: 0, at: i, bt: -1 });
  }
  for (let j = bLo; j < bHi; j++) {
    const entry = counts.get(b[j]!);
    if (entry) {
      entry.b++;
      entry.bt = j;
    }
  }
  const pairs: Array<[number, number]> = [];
  for (let i = aLo; i < aHi; i++) {
    const entry = counts.get(a[i]!)!;
    if (entry.a === 1 && entry.b === 1) pairs.push([i, entry.bt]);
  }
  const anchors = increasingRun(pairs);
  if (anchors.length === 0) return false;
  let ai = aLo;
  let bj = bLo;
  for (const [i, j] of anchors) {
    piece(problem, ai, i, bj, j, out, depth + 1);
    out.push('equal', 1);
    ai = i + 1;
    bj = j + 1;
  }
  piece(problem, ai, aHi, bj, bHi, out, depth + 1);
  return true;
}

/** A piece between anchors: diffed while the budget lasts, replaced whole after. */
function piece(problem: Problem, aLo: number, aHi: number, bLo: number, bHi: number, out: RunList, depth: number): void {
  if (problem.budget > 0) diffRange(problem, aLo, aHi, bLo, bHi, out, depth);
  else out.replace(aHi - aLo, bHi - bLo);
}

/** The longest subsequence of pairs (in order of their first position) whose second positions increase. */
function increasingRun(pairs: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length);
  for (let index = 0; index < pairs.length; index++) {
    const value = pairs[index]![1];
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pairs[tails[middle]!]![1] < value) low = middle + 1;
      else high = middle;
    }
    previous[index] = low > 0 ? tails[low - 1]! : -1;
    tails[low] = index;
  }
  const run: Array<[number, number]> = [];
  for (let index = tails.length > 0 ? tails[tails.length - 1]! : -1; index !== -1; index = previous[index]!) run.push(pairs[index]!);
  return run.reverse();
}
