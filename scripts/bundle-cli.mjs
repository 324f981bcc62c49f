/**
 * `npm run build`'s second step: bundles the CLI compiled by tsc (`dist/cli/main.js`) and the hook
 * client (`dist/integrations/claude/hook-client.js`) into `dist/bin/`, which `bin/waypoint.js`
 * loads. Node spends most of a command's start resolving, reading and linking ES modules one file
 * at a time (about 400 for `waypoint rewind`); a bundle is a few files. Each command stays in its
 * own chunk, loaded when it runs (`src/cli/command-loaders.ts`).
 *
 * The dependencies are bundled too (zod alone is 70 files), except those that load native code
 * (`EXTERNAL`: better-sqlite3, and pg and ws, which try optional native modules): they load from
 * `node_modules`. zod, the AI SDK and the MCP SDK are all inside, so the schemas our code hands to
 * the SDKs are of the one zod they use. The library itself (`dist/index.js`) is tsc's output,
 * unbundled.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXTERNAL = ['better-sqlite3', 'pg', 'ws'];
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Optional peers (vitest, for `waypoint/testing`) are never bundled either.
const external = [...EXTERNAL, ...Object.keys(manifest.peerDependencies ?? {})].flatMap((name) => [name, `${name}/*`]);
const outdir = join(root, 'dist', 'bin');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: join(root, 'dist', 'cli', 'main.js'), 'hook-client': join(root, 'dist', 'integrations', 'claude', 'hook-client.js') },
  outdir,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: 'linked',
  // Bundled CommonJS packages require Node's modules (\`require('path')\`): give every file of the
  // ES module bundle a \`require\` of its own.
  banner: { js: "import { createRequire as __waypointRequire } from 'node:module'; const require = __waypointRequire(import.meta.url);" },
  logLevel: 'warning',
});
