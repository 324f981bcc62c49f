import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Vitest global setup of the CLI project: `npm run build` once, so the tests run `node
 * bin/waypoint.js` as a user would. Type errors are `npm run typecheck`'s job: tsc still emits
 * JavaScript when it reports them (a folder mid-edit elsewhere in the tree), so they are shown as a
 * warning and the tests run on what was emitted; a build that emitted nothing fails the run.
 */
export function setup(): void {
  const root = resolve(import.meta.dirname, '..', '..');
  const entry = resolve(root, 'dist', 'cli', 'main.js');
  const started = Date.now();
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8' });
  const emitted = existsSync(entry) && statSync(entry).mtimeMs >= started - 1000;
  if (build.status === 0) return;
  const report = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim();
  if (!emitted) throw new Error(`npm run build emitted no CLI, so it cannot be tested:\n${report}`);
  // tsc stopped the build after emitting: bundle what it emitted (bin/waypoint.js loads the bundle).
  const bundle = spawnSync(process.execPath, [resolve(root, 'scripts', 'bundle-cli.mjs')], { cwd: root, encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`the CLI bundle failed, so the CLI cannot be tested:\n${bundle.stderr}`);
  console.warn(`npm run build reported errors (the CLI tests run on the JavaScript it emitted):\n${report}`);
}
