import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'waypoint';
let found: { dir: string; version: string } | null = null;

/**
 * This package's root directory and version: the nearest directory above this module holding a
 * `package.json` named `waypoint`. A fixed `../..` would break when a module moves: the same code
 * runs from `src/` (tests), from `dist/` and from the CLI's bundle in `dist/bin/`.
 */
export function packageRoot(): { dir: string; version: string } {
  if (found) return found;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === PACKAGE_NAME) {
        found = { dir, version: manifest.version ?? '0.0.0' };
        return found;
      }
    } catch {
      // no manifest here (or not ours): look one level up
    }
    if (dirname(dir) === dir) throw new Error(`no package.json named "${PACKAGE_NAME}" above ${fileURLToPath(import.meta.url)}`);
  }
}

/** A path inside this package (see {@link packageRoot}), e.g. `packagePath('bin', 'waypoint.js')`. */
export function packagePath(...segments: string[]): string {
  return join(packageRoot().dir, ...segments);
}
