import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { modeKind } from '../checkpoint/index.js';
import type { CopyJob } from './fork-copy.js';
import type { IgnoredEntryReport, IgnoredMode, NotCopiedEntry } from './isolated-report.js';

/** How one path stood at the fork point, when a change after it touched the path. */
export type PriorState = { exists: false } | { exists: true; hash: string; mode: number | null };

/** A path of the parent's directory to bring into the fork, as listed by git or the scanner. */
export interface ListedPath {
  /** Relative, `/`-separated. */
  path: string;
  /** A directory to copy whole (an untracked nested repository). */
  directory?: boolean;
}

export interface TreePlanInput {
  /** The parent's root directory (real path). */
  rootDir: string;
  /** Tracked and untracked paths: the workspace's own files. */
  listed: readonly ListedPath[];
  /** Ignored paths that are not tracked; a directory ends with `/`. */
  ignored: readonly string[];
  ignoredMode: IgnoredMode;
  /** Root-relative path → its state at the fork point, for the paths changed after it. */
  prior: ReadonlyMap<string, PriorState>;
  /** The fork-point contents the prior states name, by hash. */
  contents: ReadonlyMap<string, Buffer>;
  /** Real absolute paths never copied (the store's files and directory). */
  excluded: readonly string[];
  notCopied: NotCopiedEntry[];
  /** Paths already written into the fork (files or links, so nothing can go below one). */
  written?: ReadonlySet<string>;
}

export interface TreePlan {
  /** Everything to write, ignored copies and links included, no path below another; the workspace's own first. */
  jobs: CopyJob[];
  /** One per ignored path (counts filled in once written). */
  ignored: IgnoredEntryReport[];
  /** Root-relative paths written from the blob store. */
  restored: string[];
  notCopied: NotCopiedEntry[];
}

/** The group of the workspace's own files (an ignored path's group is its index). */
export const WORKSPACE_GROUP = -1;

/**
 * Decides what an isolated fork writes: every listed path as it is on disk now, every change
 * after the fork point undone (each such path takes its fork-point content and mode, or is left
 * out when it did not exist then), and the ignored paths copied, linked or left out as asked.
 * An ignored directory holding a path restored to the fork point is copied even when a link was
 * asked for, so the restore does not write through into the parent. Paths below what was a file
 * at the fork point, and the store's own files, are listed in `notCopied`. Reads directories only
 * (to expand the ones copied or linked whole); each file is examined when it is copied.
 */
export function planTree(input: TreePlanInput): TreePlan {
  const notCopied = input.notCopied;
  const entries = new Map<string, CopyJob>();
  // The store's files are reported once per excluded directory (or file), however many of them were listed.
  const reportedStore = new Set<string>();
  const isExcluded = (absolute: string) => {
    const dir = input.excluded.find((candidate) => absolute === candidate || absolute.startsWith(`${candidate}/`));
    if (dir === undefined) return false;
    const shown = dir.startsWith(`${input.rootDir}/`) ? dir.slice(input.rootDir.length + 1) : dir;
    if (!reportedStore.has(shown)) notCopied.push({ path: shown, reason: 'store_file' });
    reportedStore.add(shown);
    return true;
  };
  const add = (path: string, group: number) => {
    const source = join(input.rootDir, path);
    if (!isExcluded(source)) entries.set(path, { kind: 'copy', path, source, group });
  };
  const walk = (dir: string, group: number) => {
    if (isExcluded(join(input.rootDir, dir))) return;
    let children: Dirent[];
    try {
      children = readdirSync(join(input.rootDir, dir), { withFileTypes: true });
    } catch {
      return; // gone meanwhile: nothing to copy
    }
    for (const entry of children) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path, group);
      else add(path, group);
    }
  };
  // A directory is linked one level down (a real directory of links to its entries), so a rule for
  // directories only (`node_modules/`) still matches it in the fork and git leaves it out of `status`.
  const link = (path: string, directory: boolean, group: number) => {
    const source = join(input.rootDir, path);
    if (isExcluded(source)) return;
    let names = [path];
    try {
      if (directory) names = readdirSync(source).map((name) => `${path}/${name}`);
    } catch {
      names = [];
    }
    for (const name of names) entries.set(name, { kind: 'symlink', path: name, target: join(input.rootDir, name), group });
  };

  for (const listed of input.listed) {
    if (listed.directory) walk(listed.path, WORKSPACE_GROUP);
    else add(listed.path, WORKSPACE_GROUP);
  }
  const restoredPaths = [...input.prior].filter(([, state]) => state.exists).map(([path]) => path);
  const ignoredPaths = input.ignored.filter((raw) => !isExcluded(join(input.rootDir, raw.endsWith('/') ? raw.slice(0, -1) : raw)));
  const ignored: IgnoredEntryReport[] = ignoredPaths.map((raw, index) => {
    const directory = raw.endsWith('/');
    const path = directory ? raw.slice(0, -1) : raw;
    const holdsRestored = directory && restoredPaths.some((restored) => restored.startsWith(raw));
    const action: IgnoredMode = input.ignoredMode === 'link' && holdsRestored ? 'copy' : input.ignoredMode;
    if (action === 'copy') directory ? walk(path, index) : add(path, index);
    else if (action === 'link') link(path, directory, index);
    return {
      path: raw,
      action,
      files: 0,
      bytes: 0,
      ...(action === input.ignoredMode ? {} : { note: 'holds files restored to the fork point, so it is copied rather than linked' }),
    };
  });

  const restored: string[] = [];
  for (const [path, state] of input.prior) {
    const group = entries.get(path)?.group ?? WORKSPACE_GROUP;
    if (!state.exists) {
      entries.delete(path);
      continue;
    }
    const content = input.contents.get(state.hash)!;
    entries.set(
      path,
      modeKind(state.mode) === 'symlink'
        ? { kind: 'symlink', path, target: content, group }
        : { kind: 'content', path, mode: (state.mode ?? 0o644) & 0o7777, content, group },
    );
    restored.push(path);
  }

  const own: CopyJob[] = [];
  const others: CopyJob[] = [];
  for (const [path, job] of entries) {
    const blocker = ancestorIn(path, entries) ?? (input.written ? ancestorIn(path, input.written) : null);
    if (blocker !== null) notCopied.push({ path, reason: 'conflict', detail: `${blocker} is not a directory at the fork point` });
    else (job.group === WORKSPACE_GROUP ? own : others).push(job);
  }
  // The workspace's own files first, so a fork's progress reaches them before the ignored ones.
  return { jobs: [...own, ...others], ignored, restored: restored.sort(), notCopied };
}
/** The nearest ancestor of `path` that is itself an entry (a file or a link, so nothing can be below it), or null. */
function ancestorIn(path: string, entries: { has(key: string): boolean }): string | null {
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    const ancestor = path.slice(0, slash);
    if (entries.has(ancestor)) return ancestor;
  }
  return null;
}
