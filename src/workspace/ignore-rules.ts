import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import ignore, { type Ignore } from 'ignore';

/** Files whose rules apply to their directory and everything below it (same syntax as git). */
export const IGNORE_FILE_NAMES: readonly string[] = ['.gitignore', '.waypointignore'];

// Matchers are reused across scans for the same directory and rule text: `ignore` memoizes every
// path it has tested, so a re-scan of an unchanged tree answers from that memo.
const MATCHER_CACHE_LIMIT = 512;
const matcherCache = new Map<string, Ignore>();

function matcherFor(relativeDir: string, texts: readonly string[]): Ignore {
  const key = `${relativeDir}\0${texts.join('\0')}`;
  let matcher = matcherCache.get(key);
  if (matcher === undefined) {
    matcher = ignore();
    for (const text of texts) matcher.add(text);
    if (matcherCache.size >= MATCHER_CACHE_LIMIT) matcherCache.delete(matcherCache.keys().next().value!);
    matcherCache.set(key, matcher);
  }
  return matcher;
}

interface IgnoreLayer {
  /** Root-relative directory the rules were read in (`''` for the root). */
  readonly base: string;
  readonly matcher: Ignore;
}

/**
 * The ignore rules in force in one directory: the `.gitignore` and `.waypointignore` files of it and
 * of every ancestor up to the root. As in git, a deeper file overrides a shallower one and, within
 * a directory, `.waypointignore` (read second) overrides `.gitignore`; a negation (`!keep.log`)
 * re-includes a path an outer rule ignored. Immutable: descending returns a new value.
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
  ) {}

  static empty(): IgnoreRules {
    return new IgnoreRules([], '');
  }

  /**
   * The rules for directory `relativeDir` (at `absoluteDir`), given the names of the ignore files
   * present in it. Returns `this` when there are none. Unreadable ignore files are treated as empty.
   */
  withDirectory(relativeDir: string, absoluteDir: string, ignoreFileNames: readonly string[]): IgnoreRules {
    if (ignoreFileNames.length === 0) return this;
    const texts: string[] = [];
    for (const name of IGNORE_FILE_NAMES) {
      if (!ignoreFileNames.includes(name)) continue;
      try {
        texts.push(readFileSync(`${absoluteDir}/${name}`, 'utf8'));
      } catch {
        // an unreadable ignore file ignores nothing; the scan reports the file itself
      }
    }
    if (texts.length === 0) return this;
    const key = createHash('sha256')
      .update(JSON.stringify([this.key, relativeDir, texts]))
      .digest('base64url');
    return new IgnoreRules([...this.layers, { base: relativeDir, matcher: matcherFor(relativeDir, texts) }], key);
  }

  /** Whether a root-relative path (a directory when `isDirectory`) is ignored. */
  ignores(relativePath: string, isDirectory: boolean): boolean {
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index]!;
      const local = layer.base === '' ? relativePath : relativePath.slice(layer.base.length + 1);
      let result;
      try {
        result = layer.matcher.test(isDirectory ? `${local}/` : local);
      } catch {
        continue; // a name the matcher cannot express as a relative path: no rule can match it
      }
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }
}
