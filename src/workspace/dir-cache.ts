import type { WorkspacePath } from './workspace-path.js';

/**
 * What a scan saw in one directory, classified under the ignore rules and exclusions then in force,
 * so that the next scan can skip `readdir` and ignore matching for a directory that did not change
 * (git's untracked-cache idea). Plain JSON. Names are single path components.
 */
export interface DirectoryListing {
  /** The directory's own stat fields when it was read (taken before `readdir`). */
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** {@link IgnoreRules.key} of the rules the entries were classified with. */
  rules: string;
  /** Regular files and symlinks to track (each is still `lstat`ed by every scan). */
  files: string[];
  /** Subdirectories to descend into (excluded and ignored ones are not here). */
  dirs: string[];
  /** Files and directories matched by an ignore rule (reported as `ignored`). */
  ignored?: string[];
  /** Entries an ignore rule matches that are kept because git's index tracks them (a directory: something below it). */
  tracked?: string[];
  /** Sockets, FIFOs, devices (reported as `not_regular`). */
  special?: string[];
  /** Entries whose names are not valid UTF-8, escaped (see `raw-names.ts`; reported as `invalid_name`). */
  invalid?: string[];
  /** The ignore files present (`.gitignore`, `.waypointignore`): re-read by every scan. */
  ignoreFiles?: string[];
}

/** The directory part of a scan's cache state. */
export interface DirectoryCacheState {
  /**
   * Fingerprint of the exclusions the listings were classified with (excluded names, excluded
   * directories, other roots): listings made under other exclusions are not reused.
   */
  exclusions: string;
  /** Keyed like files: `<root>:` for a root, `<root>:<relative dir>` below it. */
  listings: Record<WorkspacePath, DirectoryListing>;
}

/** The directory stat fields a listing is trusted by. */
export interface DirectorySignature {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/**
 * Reuses directory listings from a previous scan. A listing is offered only when the directory's
 * mtime, ctime and inode are those it was read with and its mtime is not racy (same rule as for
 * files: not strictly older than the start of the scan that read it, less the racy window, since an
 * entry added within the same timestamp tick leaves the mtime unchanged), and only when the
 * exclusions are the same. The caller must still check {@link DirectoryListing.rules} against the
 * ignore rules now in force (built from the listing's `ignoreFiles`, re-read by every scan).
 *
 * @example
 * const directories = new DirectoryCache(previous.directories, exclusionsKey, racyBeforeMs)
 * const cached = directories.lookup('workspace:src', lstatSync(dir))
 */
export class DirectoryCache {
  private readonly listings: Record<WorkspacePath, DirectoryListing> | ReadonlyMap<WorkspacePath, DirectoryListing>;

  /** `known`: the state's listings as a map, when the caller holds them so (read instead of `state.listings`). */
  constructor(
    state: DirectoryCacheState | undefined,
    exclusions: string,
    private readonly racyBeforeMs: number,
    known?: ReadonlyMap<WorkspacePath, DirectoryListing>,
  ) {
    const usable = state !== undefined && state.exclusions === exclusions;
    this.listings = !usable ? {} : (known ?? state.listings);
  }

  /** The listing of directory `key` if it may be reused, else null (read the directory again). */
  lookup(key: WorkspacePath, signature: DirectorySignature): DirectoryListing | null {
    const listing = this.listings instanceof Map ? this.listings.get(key) : (this.listings as Record<WorkspacePath, DirectoryListing>)[key];
    if (
      listing === undefined ||
      listing.mtimeMs !== signature.mtimeMs ||
      listing.ctimeMs !== signature.ctimeMs ||
      listing.ino !== signature.ino ||
      listing.mtimeMs >= this.racyBeforeMs
    ) {
      return null;
    }
    return listing;
  }
}

/**
 * A {@link DirectoryCacheState} whose `listings` record is built from `listings` when first read
 * (an enumerable property: JSON and copies see the record), for a scan that changed a few listings.
 */
export function lazyDirectoryCacheState(exclusions: string, listings: ReadonlyMap<WorkspacePath, DirectoryListing>): DirectoryCacheState {
  const state = { exclusions } as DirectoryCacheState;
  Object.defineProperty(state, 'listings', {
    enumerable: true,
    configurable: true,
    get() {
      const record: Record<WorkspacePath, DirectoryListing> = Object.fromEntries(listings);
      Object.defineProperty(state, 'listings', { value: record, enumerable: true, configurable: true, writable: true });
      return record;
    },
  });
  return state;
}

/** Whether a value (e.g. parsed from JSON) is a well-formed {@link DirectoryCacheState}. */
export function isDirectoryCacheState(value: unknown): value is DirectoryCacheState {
  if (!isRecord(value)) return false;
  const state = value as Partial<DirectoryCacheState>;
  if (typeof state.exclusions !== 'string' || !isRecord(state.listings)) return false;
  for (const key in state.listings) {
    if (!isDirectoryListing(state.listings[key])) return false;
  }
  return true;
}

function isDirectoryListing(value: unknown): value is DirectoryListing {
  if (!isRecord(value)) return false;
  const listing = value as Partial<DirectoryListing>;
  return (
    typeof listing.mtimeMs === 'number' &&
    typeof listing.ctimeMs === 'number' &&
    typeof listing.ino === 'number' &&
    typeof listing.rules === 'string' &&
    isNameList(listing.files) &&
    isNameList(listing.dirs) &&
    (listing.ignored === undefined || isNameList(listing.ignored)) &&
    (listing.tracked === undefined || isNameList(listing.tracked)) &&
    (listing.special === undefined || isNameList(listing.special)) &&
    (listing.invalid === undefined || isNameList(listing.invalid)) &&
    (listing.ignoreFiles === undefined || isNameList(listing.ignoreFiles))
  );
}

function isNameList(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const name of value) {
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) return false;
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
