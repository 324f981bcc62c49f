// The files' side of the final check: what the shared workspace holds now, what the person moved
// to the trash, and leftovers nothing should leave (atomic-write temp files, half-built isolated
// fork directories).
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type SoakLayout } from './soak-env.js';

export interface DiskState {
  /** Workspace-relative path → content hash (regular files only). */
  files: Map<string, string>;
  /** Workspace-relative path → bytes, for the edit chains the oracle undoes. */
  contents: Map<string, Buffer>;
  /** Trash name → content hash of what the person displaced. */
  trash: Map<string, string>;
  /** Leftover temp files and staging directories (paths relative to the soak root). */
  leftovers: string[];
  /** Entries of the workspace that are neither files nor directories. */
  other: string[];
}

const TEMP = /^\..+\.[0-9a-f]{12}\.wp-tmp$/;

export function readDisk(layout: SoakLayout): DiskState {
  const files = new Map<string, string>();
  const contents = new Map<string, Buffer>();
  const leftovers: string[] = [];
  const other: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const stat = lstatSync(full);
      if (TEMP.test(name)) leftovers.push(`work/${prefix}${name}`);
      else if (stat.isDirectory()) walk(full, `${prefix}${name}/`);
      else if (stat.isFile()) {
        const bytes = readFileSync(full);
        files.set(`${prefix}${name}`, sha256(bytes));
        contents.set(`${prefix}${name}`, bytes);
      } else other.push(`${prefix}${name}`);
    }
  };
  walk(layout.work, '');
  const forks = `${layout.work}.forks`;
  if (existsSync(forks)) for (const name of readdirSync(forks)) if (name.startsWith('.')) leftovers.push(`work.forks/${name}`);
  const trash = new Map<string, string>();
  for (const name of readdirSync(layout.trash)) {
    const full = join(layout.trash, name);
    if (lstatSync(full).isFile()) trash.set(name, sha256(readFileSync(full)));
  }
  return { files, contents, trash, leftovers, other };
}
