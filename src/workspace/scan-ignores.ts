import type { DirectoryListing } from './dir-cache.js';
import type { TrackedPaths } from './git-index.js';
import type { IgnoreRules } from './ignore-rules.js';
import { loadRootIgnores } from './root-ignores.js';

// Listings classified inside an ignored directory depend on the index alone, not on rules.
const INSIDE_IGNORED_KEY = 'inside-ignored';

/**
 * A scan's ignore decisions in one directory: the ignore rules in force there, overridden by git's
 * index — a path git tracks is kept even when a rule matches it, and an ignored directory that
 * holds tracked paths is descended for those alone (everything else in it stays ignored, as git
 * cannot re-include a path whose directory is excluded). Immutable: descending returns a new value.
 *
 * @example
 * let ignores = ScanIgnores.forRoot('/repo').withDirectory('', '/repo', ['.gitignore'])
 * ignores.ignoresEntry('node_modules', true, listing, 'node_modules') // false when a file below it is tracked
 */
export class ScanIgnores {
  private constructor(
    readonly rules: IgnoreRules,
    private readonly tracked: TrackedPaths | null,
    /** The root's place below the work tree's top, with a trailing slash (`''` at the top). */
    private readonly prefix: string,
    /** True in a directory that the rules ignore, descended only for the tracked paths it holds. */
    private readonly insideIgnored: boolean,
    /** The key listings classified here are stored with (see {@link DirectoryListing.rules}). */
    readonly key: string,
    /** `core.ignoreCase`: a path differing from a tracked one only in case is tracked too, as for git. */
    private readonly ignoreCase = false,
  ) {}

  /** The decisions at a root directory (a real path), from git's rules and index when it lies in a work tree. */
  static forRoot(rootDir: string): ScanIgnores {
    const { rules, workTree, tracked, ignoreCase } = loadRootIgnores(rootDir);
    const prefix = workTree === null || workTree.prefix === '' ? '' : `${workTree.prefix}/`;
    return new ScanIgnores(rules, tracked, prefix, false, rules.key, ignoreCase);
  }

  /** The decisions in directory `relativeDir`, given the ignore files present in it. */
  withDirectory(relativeDir: string, absoluteDir: string, ignoreFileNames: readonly string[]): ScanIgnores {
    if (this.insideIgnored) return this;
    const rules = this.rules.withDirectory(relativeDir, absoluteDir, ignoreFileNames);
    return rules === this.rules ? this : new ScanIgnores(rules, this.tracked, this.prefix, false, rules.key, this.ignoreCase);
  }

  /**
   * Whether to pass over entry `name` at root-relative `path` as ignored. An entry kept only because
   * git tracks it (or, for a directory, something below it) is noted in `listing.tracked`.
   */
  ignoresEntry(path: string, isDirectory: boolean, listing: DirectoryListing, name: string): boolean {
    if (!this.insideIgnored && !this.rules.ignores(path, isDirectory)) return false;
    if (!this.isTracked(path, isDirectory)) return true;
    (listing.tracked ??= []).push(name);
    return false;
  }

  /** The decisions in subdirectory `name` of a directory classified as `listing`. */
  child(name: string, listing: DirectoryListing): ScanIgnores {
    if (this.insideIgnored || listing.tracked === undefined || !listing.tracked.includes(name)) return this;
    return new ScanIgnores(this.rules, this.tracked, this.prefix, true, INSIDE_IGNORED_KEY, this.ignoreCase);
  }

  /**
   * Whether a cached listing of directory `relativeDir` still holds under the index now: every
   * entry it kept for being tracked still is, and no entry it ignored has become tracked.
   */
  listingHolds(listing: DirectoryListing, relativeDir: string): boolean {
    const childPrefix = relativeDir === '' ? '' : `${relativeDir}/`;
    if (listing.tracked !== undefined) {
      for (const name of listing.tracked) if (!this.isTracked(childPrefix + name, undefined)) return false;
    }
    if (listing.ignored !== undefined && this.tracked !== null) {
      for (const name of listing.ignored) if (this.isTracked(childPrefix + name, undefined)) return false;
    }
    return true;
  }

  /** Whether `other` decides exactly as this does: the same rules (by key), the same index, the same place in the work tree. */
  sameAs(other: ScanIgnores): boolean {
    return (
      this.key === other.key &&
      this.rules.key === other.rules.key &&
      this.tracked === other.tracked &&
      this.prefix === other.prefix &&
      this.insideIgnored === other.insideIgnored &&
      this.ignoreCase === other.ignoreCase
    );
  }

  /** Whether git tracks a root-relative path (as a file, a directory holding tracked paths, or either when undefined). */
  private isTracked(path: string, isDirectory: boolean | undefined): boolean {
    if (this.tracked === null) return false;
    const fromTop = this.prefix + path;
    if (isDirectory !== true && this.tracked.hasFile(fromTop, this.ignoreCase)) return true;
    return isDirectory !== false && this.tracked.hasDirectory(fromTop, this.ignoreCase);
  }
}
