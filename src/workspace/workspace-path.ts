import { InvalidArgumentError } from '../model/errors/index.js';

/**
 * A root-qualified path, `<root name>:<path relative to the root>` with `/` separators
 * (`workspace:src/index.ts`, `notes:todo.md`), like a storage URI. Snapshots,
 * diffs and stat caches key files by it, so several roots never collide.
 */
export type WorkspacePath = string;

/** Joins a root name and a root-relative path into a {@link WorkspacePath}. */
export function toWorkspacePath(rootName: string, relativePath: string): WorkspacePath {
  return `${rootName}:${relativePath}`;
}

/** Splits a {@link WorkspacePath} at its first `:` (root names never contain one). */
export function parseWorkspacePath(path: WorkspacePath): { root: string; relativePath: string } {
  const colon = path.indexOf(':');
  if (colon <= 0) {
    throw new InvalidArgumentError({ parameter: 'path', value: path, reason: 'expected "<root>:<relative path>", e.g. "workspace:src/a.ts"' });
  }
  return { root: path.slice(0, colon), relativePath: path.slice(colon + 1) };
}
