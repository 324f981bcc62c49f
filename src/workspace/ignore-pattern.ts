import { WILDMATCH_CASEFOLD, WILDMATCH_PATHNAME, wildmatch } from './wildmatch.js';

/**
 * One line of an ignore file, parsed as git parses it. Strings are byte strings (one character
 * per byte of the UTF-8 text), since git compares bytes.
 */
export interface IgnorePattern {
  /** The pattern without its `!` and without the trailing `/` of a directory-only rule. */
  readonly body: string;
  /** `!pattern`: a path it matches is not ignored (re-included). */
  readonly negative: boolean;
  /** `pattern/`: matches directories only. */
  readonly directoryOnly: boolean;
  /** No `/` in the body: matched against the last path component at any depth. */
  readonly basenameOnly: boolean;
  /** `*literal`: a basename matches when it ends with the literal. */
  readonly endsWith: boolean;
  /** How many leading bytes of the body hold no wildcard (compared before globbing). */
  readonly literalPrefix: number;
  /** 1-based line in its file, for explanations. */
  readonly line: number;
  /** The line as written (after trimming), for explanations. */
  readonly text: string;
}

const UTF8_BOM = '\xef\xbb\xbf';
const GLOB_SPECIAL = /[*?[\\]/;

/**
 * The patterns of an ignore file, in file order, from its bytes as a byte string: a UTF-8 byte
 * order mark is skipped, lines end at `\n` (a `\r` before it is dropped), blank lines and lines
 * starting with `#` are skipped, and trailing spaces are removed unless escaped with `\`.
 *
 * @example
 * parseIgnoreFile('node_modules/\n!/build/keep\n') // two patterns: a directory rule and a negation
 */
export function parseIgnoreFile(bytes: string): IgnorePattern[] {
  const text = bytes.startsWith(UTF8_BOM) ? bytes.slice(UTF8_BOM.length) : bytes;
  const patterns: IgnorePattern[] = [];
  const lines = text.split('\n');
  // A last line without a newline counts like the others; the empty string after a final newline is not a line.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index]!;
    if (line === '' || line.startsWith('#')) continue;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const pattern = parsePattern(trimTrailingSpaces(line), index + 1);
    if (pattern !== null) patterns.push(pattern);
  }
  return patterns;
}

/** Drops trailing spaces that no backslash escapes (tabs stay; a lone final backslash ends it as is). */
function trimTrailingSpaces(line: string): string {
  let spacesFrom = -1;
  for (let index = 0; index < line.length; index++) {
    const c = line[index];
    if (c === ' ') {
      if (spacesFrom === -1) spacesFrom = index;
    } else if (c === '\\') {
      index++;
      if (index >= line.length) return line;
      spacesFrom = -1;
    } else spacesFrom = -1;
  }
  return spacesFrom === -1 ? line : line.slice(0, spacesFrom);
}

function parsePattern(line: string, lineNumber: number): IgnorePattern | null {
  let body = line;
  const negative = body.startsWith('!');
  if (negative) body = body.slice(1);
  const directoryOnly = body.endsWith('/');
  if (directoryOnly) body = body.slice(0, -1);
  const special = body.search(GLOB_SPECIAL);
  return {
    body,
    negative,
    directoryOnly,
    basenameOnly: !body.includes('/'),
    endsWith: body.startsWith('*') && !GLOB_SPECIAL.test(body.slice(1)),
    literalPrefix: special === -1 ? body.length : special,
    line: lineNumber,
    text: line,
  };
}

/**
 * Whether `pattern`, read from the ignore file of directory `base` (relative to the top of the
 * work tree, `''` or without a trailing slash), matches `path` (relative to the same top, a byte
 * string). `nameStart` is where its last component begins.
 */
export function patternMatches(pattern: IgnorePattern, base: string, path: string, nameStart: number, isDirectory: boolean, ignoreCase: boolean): boolean {
  if (pattern.directoryOnly && !isDirectory) return false;
  return pattern.basenameOnly ? matchBasename(pattern, path, nameStart, ignoreCase) : matchPathname(pattern, base, path, ignoreCase);
}

function matchBasename(pattern: IgnorePattern, path: string, nameStart: number, ignoreCase: boolean): boolean {
  const { body } = pattern;
  const nameLength = path.length - nameStart;
  if (pattern.literalPrefix === body.length) return nameLength === body.length && sameBytes(body, 0, path, nameStart, body.length, ignoreCase);
  if (pattern.endsWith) {
    const suffix = body.length - 1;
    return suffix <= nameLength && sameBytes(body, 1, path, path.length - suffix, suffix, ignoreCase);
  }
  return wildmatch(body, nameStart === 0 ? path : path.slice(nameStart), ignoreCase ? WILDMATCH_CASEFOLD : 0);
}

function matchPathname(pattern: IgnorePattern, base: string, path: string, ignoreCase: boolean): boolean {
  let { body } = pattern;
  let literal = pattern.literalPrefix;
  // A leading slash anchors the pattern to its file's directory, which every pathname pattern is anyway.
  if (body.startsWith('/')) {
    body = body.slice(1);
    literal--;
  }
  let nameStart = 0;
  if (base !== '') {
    if (path.length < base.length + 1 || path.charCodeAt(base.length) !== 0x2f || !sameBytes(path, 0, base, 0, base.length, ignoreCase)) return false;
    nameStart = base.length + 1;
  }
  let patternStart = 0;
  if (literal > 0) {
    if (literal > path.length - nameStart || !sameBytes(body, 0, path, nameStart, literal, ignoreCase)) return false;
    patternStart = literal;
    nameStart += literal;
    if (patternStart === body.length && nameStart === path.length) return true;
  }
  const flags = WILDMATCH_PATHNAME | (ignoreCase ? WILDMATCH_CASEFOLD : 0);
  return wildmatch(patternStart === 0 ? body : body.slice(patternStart), path.slice(nameStart), flags);
}

/** Byte comparison of `length` bytes, folding ASCII case when asked (git's `fspathncmp`). */
function sameBytes(a: string, aStart: number, b: string, bStart: number, length: number, ignoreCase: boolean): boolean {
  for (let index = 0; index < length; index++) {
    let x = a.charCodeAt(aStart + index);
    let y = b.charCodeAt(bStart + index);
    if (x === y) continue;
    if (!ignoreCase) return false;
    if (x >= 0x41 && x <= 0x5a) x += 0x20;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return false;
  }
  return true;
}
