import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedPath } from '../../workspace/index.js';

/** What is inside a directory that a rewind or redo would turn back into a file. */
export interface DirectoryInWay {
  /** Workspace keys of the regular files under it. */
  files: string[];
  /** Workspace keys of the directory and every directory under it, deepest first (the order to remove them). */
  directories: string[];
  /** Workspace keys of anything else under it (symbolic links, sockets …): never removed. */
  other: string[];
}

/**
 * Lists a directory's tree as workspace keys. A directory can give way to a file only when every
 * file in it is deleted by the same rewind (its content is then kept like any other), so the
 * caller checks `files` against its plan and refuses when anything else would be lost.
 */
export function scanDirectoryInWay(resolved: ResolvedPath): DirectoryInWay {
  const out: DirectoryInWay = { files: [], directories: [], other: [] };
  const prefix = `${resolved.root.name}:`;
  const walk = (absolute: string, relative: string): void => {
    for (const name of readdirSync(absolute).sort()) {
      const childAbsolute = join(absolute, name);
      const childRelative = `${relative}/${name}`;
      const stats = lstatSync(childAbsolute);
      if (stats.isDirectory()) walk(childAbsolute, childRelative);
      else if (stats.isFile()) out.files.push(`${prefix}${childRelative}`);
      else out.other.push(`${prefix}${childRelative}`);
    }
    out.directories.push(`${prefix}${relative}`);
  };
  walk(resolved.entryPath, resolved.relativePath);
  return out;
}

/** The reason given when a directory holds what the rewind would not keep. */
export function directoryInWayReason(foreign: readonly string[]): string {
  const listed = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? ` and ${foreign.length - 3} more` : '');
  return `a directory is here now, holding ${listed}, which this rewind does not remove; move the directory away (or remove what is inside) and try again`;
}
