import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..', '..');

/**
 * `npm pack` of this repository (its `dist/` built by the CLI project's global setup), installed
 * into a fresh ESM project of its own in a temporary directory, as a user would install it.
 *
 * The install runs offline: the project gets a lockfile whose entries for the package's
 * dependencies are this repository's own (same versions, same integrity), so npm takes every
 * tarball from its cache without asking the registry. Install scripts are not run (npm would
 * fetch a prebuilt better-sqlite3 binary or the Node headers to compile one); the addon this
 * repository built for the same version and Node is copied in instead. vitest, an optional peer
 * dependency needed only by `runStoreConformance`, is linked from this repository.
 */
export function createPackedProject(): { dir: string; tarball: string } {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-packed-'));
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  const tarball = join(dir, packed);
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    engines: Record<string, string>;
  };
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'packed-consumer', dependencies: { waypoint: `file:${packed}` } },
    'node_modules/waypoint': {
      version: pkg.version,
      resolved: `file:${packed}`,
      integrity,
      dependencies: pkg.dependencies,
      engines: pkg.engines,
      bin: { waypoint: 'bin/waypoint.js' },
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'packed-consumer', private: true, type: 'module', dependencies: { waypoint: `file:${packed}` } }, null, 2),
  );
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'packed-consumer', lockfileVersion: 3, requires: true, packages }, null, 2));
  execFileSync('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  const require = createRequire(join(repoRoot, 'package.json'));
  const addon = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
  copyFileSync(addon, join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
  symlinkSync(dirname(require.resolve('vitest/package.json')), join(dir, 'node_modules', 'vitest'));
  return { dir, tarball };
}

/** The fenced code blocks of a README section (`## title` up to the next `## `), in order, with their language. */
export function readmeBlocks(section: string): Array<{ lang: string; code: string }> {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README.md has no section "${section}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const body = readme.slice(start, end < 0 ? undefined : end);
  return [...body.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1]!, code: match[2]! }));
}
