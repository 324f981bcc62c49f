/**
 * How long a `waypoint` command takes from the shell (process start to exit) with the bundle
 * `npm run build` makes (`dist/bin/`, what `bin/waypoint.js` runs), against the same commands run
 * from tsc's module-per-file output (`dist/cli/main.js`), interleaved command by command in the
 * same run, on a store holding one 20-turn session. `node -e 0` is the floor no command can beat.
 * Run `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SqliteStore } from '../../src/store/index.js';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { seedLongSession } from '../long-session.js';

const SUITE = 'cli-start';
const ROOT = resolve(import.meta.dirname, '..', '..');

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function run(context: BenchContext): Promise<BenchResult[]> {
  for (const built of ['dist/bin/main.js', 'dist/cli/main.js']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const dir = context.tempDir('waypoint-cli-start-');
  const storePath = join(dir, 'store.db');
  const store = await SqliteStore.open({ path: storePath });
  let sessionId: string;
  try {
    sessionId = await seedLongSession(store, 20, dir);
  } finally {
    await store.close();
  }
  // The unbundled CLI, started as bin/waypoint.js starts the bundle.
  const unbundled = join(dir, 'unbundled.mjs');
  writeFileSync(
    unbundled,
    `process.env.UV_THREADPOOL_SIZE ??= '16';\nconst { main } = await import(${JSON.stringify(join(ROOT, 'dist', 'cli', 'main.js'))});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  const commands: Array<[name: string, args: string[]]> = [
    ['--version', ['--version']],
    ['sessions', ['sessions', '--store', storePath]],
    ['log', ['log', sessionId, '--store', storePath]],
    ['rewind status', ['rewind', sessionId, 'status', '--store', storePath]],
  ];
  const rounds = context.quick ? 3 : 9;
  const times = new Map<string, number[]>();
  const time = (key: string, args: string[]) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    times.set(key, [...(times.get(key) ?? []), elapsed]);
  };
  for (let round = 0; round < rounds; round++) {
    time('floor', ['-e', '0']);
    for (const [name, args] of commands) {
      time(`bundle ${name}`, [join(ROOT, 'bin', 'waypoint.js'), ...args]);
      time(`modules ${name}`, [unbundled, ...args]);
    }
  }
  const floor = median(times.get('floor')!);
  return commands.map(([name]) => {
    const bundle = median(times.get(`bundle ${name}`)!);
    const modules = median(times.get(`modules ${name}`)!);
    return {
      suite: SUITE,
      name: `waypoint ${name} (bundle) vs tsc's modules`,
      value: bundle,
      unit: 'ms',
      baseline: { name: 'the same from dist/cli/main.js', value: modules },
      ratio: bundle / modules,
      note: `process start to exit, median of ${rounds}; node -e 0: ${floor.toFixed(0)} ms`,
    };
  });
}

const suite: BenchSuite = { name: SUITE, run };
export default suite;
