import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Workspace } from '../../workspace/index.js';

/** Directory names never searched by glob and grep (besides the workspace's own exclusions). */
const SKIPPED_NAMES = new Set(['.git', 'node_modules']);

/**
 * Files under `dir` (a real path inside the workspace), as paths relative to the primary root, in
 * sorted order. Symbolic links are not followed (so nothing outside the roots is reached); the
 * store's directory and `.git` / `node_modules` are skipped. Stops after `limit` files.
 */
export function walkFiles(workspace: Workspace, dir: string, limit: number): { files: string[]; truncated: boolean } {
  const base = workspace.primaryRoot.realDir;
  const excluded = new Set(workspace.exclusions.dirs);
  const files: string[] = [];
  const visit = (current: string): boolean => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return true;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (SKIPPED_NAMES.has(entry.name) || workspace.exclusions.names.has(entry.name) || excluded.has(path)) continue;
        if (!visit(path)) return false;
      } else if (entry.isFile()) {
        if (files.length >= limit) return false;
        files.push(relative(base, path).split('\\').join('/'));
      }
    }
    return true;
  };
  const complete = visit(dir);
  return { files, truncated: !complete };
}
