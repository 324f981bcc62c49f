import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { type IgnorePattern, parseIgnoreFile, patternMatches } from './ignore-pattern.js';
import { toByteString } from './wildmatch.js';

/** Files whose rules apply to their directory and everything below it (same syntax as git). */
export const IGNORE_FILE_NAMES: readonly string[] = ['.gitignore', '.waypointignore'];

/** A file of rules that applies beside the per-directory ones (`.git/info/exclude`, `core.excludesFile`). */
export interface IgnoreSource {
  /** Where the rules were read, for explanations. */
  readonly path: string;
  /** The file's bytes as a byte string (one character per byte). */
  readonly bytes: string;
  /** The directory the rules are relative to, from the top of the work tree (`''`: the top). */
  readonly base?: string;
}

/** Which rule decided about a path, as `git check-ignore -v` names it. */
export interface IgnoreMatch {
  readonly source: string;
  readonly line: number;
  /** The rule as written, `!` included. */
  readonly pattern: string;
  /** True when the rule is a negation: the path is then not ignored. */
  readonly negative: boolean;
}

interface IgnoreLayer {
  /** Directory the rules are relative to, from the top of the work tree, as a byte string (`''`: the top). */
  readonly base: string;
  readonly source: string;
  readonly patterns: readonly IgnorePattern[];
}

// Parsed files are reused across scans for the same text.
const PARSED_CACHE_LIMIT = 512;
const parsedCache = new Map<string, IgnorePattern[]>();

function parsed(bytes: string): IgnorePattern[] {
  let patterns = parsedCache.get(bytes);
  if (patterns === undefined) {
    patterns = parseIgnoreFile(bytes);
    if (parsedCache.size >= PARSED_CACHE_LIMIT) parsedCache.delete(parsedCache.keys().next().value!);
    parsedCache.set(bytes, patterns);
  }
  return patterns;
}

/**
 * The ignore rules in force in one directory, decided as git decides: the `.gitignore` (then
 * `.waypointignore`) of it and of every ancestor, then `.git/info/exclude`, then
 * `core.excludesFile`. The deepest file with a matching rule decides, and within a file the last
 * matching rule: a negation (`!keep.log`) re-includes what a rule before it or a shallower file
 * ignored. A path whose directory is ignored is never re-included: scans do not descend ignored
 * directories. Matching is over bytes and case-sensitive unless `core.ignoreCase` is set.
 * Immutable: descending returns a new value.
 *
 * @example
 * const rules = IgnoreRules.empty().withDirectory('', '/repo', ['.gitignore'])
 * rules.ignores('build', true) // true when .gitignore says `build/`
 */
export class IgnoreRules {
  private constructor(
    private readonly layers: readonly IgnoreLayer[],
    /**
     * Identifies the rules: equal keys mean the same rule texts read in the same directories, so a
     * decision made under one key holds under the other. `''` for no rules; otherwise a sha256
     * over the parent's key, the directory and its texts. Scans store it with cached listings.
     */
    readonly key: string,
    /** Where the scanned root lies below the top of its work tree (byte string, `''`: at the top). */
    private readonly prefix: string,
    private readonly ignoreCase: boolean,
  ) {}

  static empty(): IgnoreRules {
    return new IgnoreRules([], '', '', false);
  }

  /**
   * The rules a root starts with inside a git work tree: `sources` from the lowest precedence
   * (`core.excludesFile`) to the highest (the `.gitignore` files of the root's ancestors), the
   * root's place below the work tree's top (`'sub/dir'`, `''` at the top) and `core.ignoreCase`.
   */
  static fromSources(sources: readonly IgnoreSource[], options: { prefix?: string; ignoreCase?: boolean } = {}): IgnoreRules {
    const prefix = toByteString(options.prefix ?? '');
    const ignoreCase = options.ignoreCase ?? false;
    const layers = sources.map((source) => ({ base: toByteString(source.base ?? ''), source: source.path, patterns: parsed(source.bytes) }));
    if (layers.length === 0 && prefix === '' && !ignoreCase) return IgnoreRules.empty();
    const key = createHash('sha256')
      .update(JSON.stringify(['sources', prefix, ignoreCase, sources.map((source) => [source.base ?? '', source.bytes])]))
      .digest('base64url');
    return new IgnoreRules(layers, key, prefix, ignoreCase);
  }

  /**
   * The rules for directory `relativeDir` (at `absoluteDir`), given the names of the ignore files
   * present in it. Returns `this` when there are none. Unreadable ignore files are treated as empty,
   * and so are ignore files that are symbolic links (git does not follow them either).
   */
  withDirectory(relativeDir: string, absoluteDir: string, ignoreFileNames: readonly string[]): IgnoreRules {
    if (ignoreFileNames.length === 0) return this;
    const texts: string[] = [];
    const found: { name: string; bytes: string }[] = [];
    for (const name of IGNORE_FILE_NAMES) {
      if (!ignoreFileNames.includes(name)) continue;
      const path = `${absoluteDir}/${name}`;
      try {
        if (lstatSync(path).isSymbolicLink()) continue;
        const bytes = readFileSync(path, 'latin1');
        texts.push(bytes);
        found.push({ name, bytes });
      } catch {
        // an unreadable ignore file ignores nothing; the scan reports the file itself
      }
    }
    if (texts.length === 0) return this;
    const key = createHash('sha256')
      .update(JSON.stringify([this.key, relativeDir, texts]))
      .digest('base64url');
    const base = this.fromTop(toByteString(relativeDir));
    const layers = found.map(({ name, bytes }) => ({ base, source: relativeDir === '' ? name : `${relativeDir}/${name}`, patterns: parsed(bytes) }));
    return new IgnoreRules([...this.layers, ...layers], key, this.prefix, this.ignoreCase);
  }

  /** Whether a root-relative path (a directory when `isDirectory`) is ignored by the rules in force in its directory. */
  ignores(relativePath: string, isDirectory: boolean): boolean {
    const found = this.decide(relativePath, isDirectory);
    return found !== null && !found.pattern.negative;
  }

  /** The rule that decides about a root-relative path, or null when none matches (see {@link ignores}). */
  explain(relativePath: string, isDirectory: boolean): IgnoreMatch | null {
    const found = this.decide(relativePath, isDirectory);
    if (found === null) return null;
    return { source: found.layer.source, line: found.pattern.line, pattern: found.pattern.text, negative: found.pattern.negative };
  }

  private decide(relativePath: string, isDirectory: boolean): { layer: IgnoreLayer; pattern: IgnorePattern } | null {
    if (this.layers.length === 0) return null;
    const path = this.fromTop(toByteString(relativePath));
    const nameStart = path.lastIndexOf('/') + 1;
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index]!;
      const patterns = layer.patterns;
      for (let at = patterns.length - 1; at >= 0; at--) {
        const pattern = patterns[at]!;
        if (patternMatches(pattern, layer.base, path, nameStart, isDirectory, this.ignoreCase)) return { layer, pattern };
      }
    }
    return null;
  }

  private fromTop(relative: string): string {
    if (this.prefix === '') return relative;
    return relative === '' ? this.prefix : `${this.prefix}/${relative}`;
  }
}
