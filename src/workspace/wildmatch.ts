/** Fold ASCII letters to lower case before comparing (git's `core.ignoreCase`). */
export const WILDMATCH_CASEFOLD = 1;
/** `*`, `?` and classes never match `/`; `**` between slashes matches any number of directories. */
export const WILDMATCH_PATHNAME = 2;

// Outcomes of one matching attempt. Besides match / no match, a failure can tell the callers that
// no shorter or longer span for an enclosing star can succeed either, which prunes the search.
const MATCH = 0;
const NO_MATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_DOUBLE_STAR = -2;

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const STAR = 0x2a;
const QUESTION = 0x3f;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isGlobSpecial = (c: number) => c === STAR || c === QUESTION || c === OPEN_BRACKET || c === BACKSLASH;

/** The `[:name:]` classes git knows, over bytes (ASCII only: bytes from 0x80 belong to none). */
const CHARACTER_CLASSES: Record<string, (c: number, fold: boolean) => boolean> = {
  alnum: (c) => isUpper(c) || isLower(c) || isDigit(c),
  alpha: (c) => isUpper(c) || isLower(c),
  blank: (c) => c === 0x20 || c === 0x09,
  cntrl: (c) => c < 0x20 || c === 0x7f,
  digit: isDigit,
  graph: (c) => c > 0x20 && c < 0x7f,
  lower: isLower,
  print: (c) => c >= 0x20 && c < 0x7f,
  punct: (c) => c > 0x20 && c < 0x7f && !isUpper(c) && !isLower(c) && !isDigit(c),
  space: (c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d,
  upper: (c, fold) => isUpper(c) || (fold && isLower(c)),
  xdigit: (c) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66),
};

/**
 * Git's glob matching (`wildmatch`), the one its ignore rules use. Both strings are byte strings:
 * one character per byte of the UTF-8 text (see {@link toByteString}), since git compares bytes
 * (`?` matches one byte of a multi-byte character, not the character).
 *
 * @example
 * wildmatch('src/**\/*.ts', 'src/a/b.ts', WILDMATCH_PATHNAME) // true
 * wildmatch('*.ts', 'a/b.ts', WILDMATCH_PATHNAME)            // false: `*` stops at `/`
 */
export function wildmatch(pattern: string, text: string, flags: number): boolean {
  return matchFrom(pattern, 0, text, 0, flags) === MATCH;
}

/** A JavaScript string as the byte string of its UTF-8 encoding (unchanged when it is ASCII). */
export function toByteString(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the whole of ASCII
  return /^[\x00-\x7f]*$/.test(text) ? text : Buffer.from(text, 'utf8').toString('latin1');
}

function foldCase(c: number, fold: boolean): number {
  return fold && isUpper(c) ? c + 0x20 : c;
}

/**
 * Matches `pattern` from `start` (where this attempt's pattern begins: a `**` right after it
 * counts as following a slash) against `text` from `t`.
 */
function matchFrom(pattern: string, start: number, text: string, t: number, flags: number): number {
  const fold = (flags & WILDMATCH_CASEFOLD) !== 0;
  const pathname = (flags & WILDMATCH_PATHNAME) !== 0;
  let p = start;
  for (; p < pattern.length; p++, t++) {
    let pc = foldCase(pattern.charCodeAt(p), fold);
    const atEnd = t >= text.length;
    if (atEnd && pc !== STAR) return ABORT_ALL;
    let tc = atEnd ? 0 : foldCase(text.charCodeAt(t), fold);
    if (pc === QUESTION) {
      if (pathname && tc === SLASH) return NO_MATCH;
      continue;
    }
    if (pc === OPEN_BRACKET) {
      const result = matchClass(pattern, p, tc, fold, pathname);
      if (result < 0) return result === -2 ? NO_MATCH : ABORT_ALL;
      p = result;
      continue;
    }
    if (pc !== STAR) {
      // A backslash makes the next pattern byte literal (none left: nothing can match it).
      if (pc === BACKSLASH) pc = p + 1 < pattern.length ? pattern.charCodeAt(++p) : 0;
      if (tc !== pc) return NO_MATCH;
      continue;
    }
    // A run of stars. Two or more between slashes (or at an end) cross directories under
    // WILDMATCH_PATHNAME; one, or a run glued to other characters, stays within a component.
    let crossesSlash: boolean;
    p++;
    if (p < pattern.length && pattern.charCodeAt(p) === STAR) {
      const before = p - 2;
      while (p < pattern.length && pattern.charCodeAt(p) === STAR) p++;
      if (!pathname) crossesSlash = true;
      else if (
        (before < start || pattern.charCodeAt(before) === SLASH) &&
        (p === pattern.length || pattern.charCodeAt(p) === SLASH || (pattern.charCodeAt(p) === BACKSLASH && pattern.charCodeAt(p + 1) === SLASH))
      ) {
        // `dir/**/rest` also matches `dir/rest`: try the rest with the stars matching nothing.
        if (pattern.charCodeAt(p) === SLASH && matchFrom(pattern, p + 1, text, t, flags) === MATCH) return MATCH;
        crossesSlash = true;
      } else crossesSlash = false;
    } else crossesSlash = !pathname;
    if (p === pattern.length) {
      // Stars at the end take the rest, except a slash when they may not cross one.
      if (!crossesSlash && text.indexOf('/', t) !== -1) return NO_MATCH;
      return MATCH;
    }
    if (!crossesSlash && pattern.charCodeAt(p) === SLASH) {
      // `*/`: the star takes the rest of this component; the loop then matches the slash.
      const slash = text.indexOf('/', t);
      if (slash === -1) return NO_MATCH;
      t = slash;
      continue;
    }
    for (;;) {
      if (tc === 0 && t >= text.length) break;
      const next = pattern.charCodeAt(p);
      if (!isGlobSpecial(next)) {
        // A literal after the stars: skip ahead to where it occurs.
        const wanted = foldCase(next, fold);
        while (t < text.length) {
          tc = foldCase(text.charCodeAt(t), fold);
          if (tc === wanted || (!crossesSlash && tc === SLASH)) break;
          t++;
        }
        if (t >= text.length || tc !== wanted) return NO_MATCH;
      }
      const matched = matchFrom(pattern, p, text, t, flags);
      if (matched !== NO_MATCH) {
        if (!crossesSlash || matched !== ABORT_TO_DOUBLE_STAR) return matched;
      } else if (!crossesSlash && tc === SLASH) return ABORT_TO_DOUBLE_STAR;
      t++;
      tc = t < text.length ? text.charCodeAt(t) : 0;
    }
    return ABORT_ALL;
  }
  return t < text.length ? NO_MATCH : MATCH;
}

/**
 * A bracket expression at `open` against text byte `tc`: the index of its closing `]` when it
 * matches, -2 when it does not, -1 when the pattern is malformed (nothing can match).
 */
function matchClass(pattern: string, open: number, tc: number, fold: boolean, pathname: boolean): number {
  let p = open + 1;
  let pc = at(pattern, p);
  if (pc === 0x5e) pc = 0x21; // `[^…]` is `[!…]`
  const negated = pc === 0x21;
  if (negated) pc = at(pattern, ++p);
  let previous = 0;
  let matched = false;
  // The first byte is a member even when it is `]`.
  do {
    if (pc === 0) return -1;
    if (pc === BACKSLASH) {
      pc = at(pattern, ++p);
      if (pc === 0) return -1;
      if (tc === pc) matched = true;
    } else if (pc === 0x2d && previous !== 0 && at(pattern, p + 1) !== 0 && at(pattern, p + 1) !== CLOSE_BRACKET) {
      pc = at(pattern, ++p);
      if (pc === BACKSLASH) {
        pc = at(pattern, ++p);
        if (pc === 0) return -1;
      }
      if (tc <= pc && tc >= previous) matched = true;
      else if (fold && isLower(tc) && tc - 0x20 <= pc && tc - 0x20 >= previous) matched = true;
      pc = 0; // a range's end cannot start another range
    } else if (pc === OPEN_BRACKET && at(pattern, p + 1) === 0x3a) {
      const nameStart = p + 2;
      let close = nameStart;
      while (close < pattern.length && pattern.charCodeAt(close) !== CLOSE_BRACKET) close++;
      if (close >= pattern.length) return -1;
      if (close - nameStart - 1 < 0 || pattern.charCodeAt(close - 1) !== 0x3a) {
        // No `:]`: the `[` is an ordinary member and the scan goes on after it.
        if (tc === OPEN_BRACKET) matched = true;
        previous = OPEN_BRACKET;
        pc = at(pattern, ++p);
        continue;
      }
      const test = CHARACTER_CLASSES[pattern.slice(nameStart, close - 1)];
      if (test === undefined) return -1;
      if (test(tc, fold)) matched = true;
      p = close;
      pc = 0;
    } else if (tc === pc) matched = true;
    previous = pc;
    pc = at(pattern, ++p);
  } while (pc !== CLOSE_BRACKET);
  if (matched === negated || (pathname && tc === SLASH)) return -2;
  return p;
}

function at(text: string, index: number): number {
  return index < text.length ? text.charCodeAt(index) : 0;
}
