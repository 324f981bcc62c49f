/**
 * What git's rules and index cost a scan: a generated workspace made a git repository (every file
 * added, one force-added file under the ignored node_modules/), scanned as a git work tree —
 * git's ignore sources read, the index consulted, re-read whenever it changed — against the same
 * tree scanned as before (no git: `.git` renamed away and excluded), in the same run, in wall and
 * CPU time (the goal is on CPU: the shared box's load moves wall time by more than this costs). Also the
 * index read itself, parsed here against `git ls-files -z`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { timeMedian, type BenchContext, type BenchResult, type BenchSuite } from '../harness.js';
import { backdate, generateWorkspace } from '../workspace-generator.js';
import { scanWorkspace, Workspace, type StatCacheState } from '../../src/workspace/index.js';
import { parseIndex } from '../../src/workspace/git-index.js';

async function measure(context: BenchContext, fileCount: number): Promise<BenchResult[]> {
  const suite = 'git-ignore-scan';
  const label = `${fileCount / 1000}k`;
  const dir = context.tempDir('waypoint-git-scan-');
  generateWorkspace(dir, fileCount);
  writeFileSync(join(dir, 'node_modules/dep/patched.js'), 'patched\n');
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 });
  git('init', '-q');
  git('add', '-A');
  git('add', '-f', 'node_modules/dep/patched.js');
  backdate(dir);
  const runs = context.quick ? 3 : 7;
  const results: BenchResult[] = [];
  const indexPath = join(dir, '.git', 'index');

  const inGit = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] });
  const noGit = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }], excludedNames: ['.git', '.git-away'] });
  const hideGit = () => renameSync(join(dir, '.git'), join(dir, '.git-away'));
  const showGit = () => renameSync(join(dir, '.git-away'), join(dir, '.git'));
  const median = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
  /** Wall and CPU time (all threads: the lstat workers too) of one call, in ms. */
  const measureOne = (fn: () => void) => {
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    fn();
    const used = process.cpuUsage(cpu);
    return { wall: Number(process.hrtime.bigint() - start) / 1e6, cpu: (used.user + used.system) / 1000 };
  };
  // Blocks of scans alternate between the two (the box is shared: load shifts within a run); the
  // wall figure is the median, the CPU figure (less sensitive to that load) too.
  const paired = (samples: number, withCache: boolean, beforeGit?: () => void) => {
    const git = { wall: [] as number[], cpu: [] as number[] };
    const plain = { wall: [] as number[], cpu: [] as number[] };
    for (let block = 0; block < 2; block++) {
      for (const [workspace, into] of [
        [inGit, git],
        [noGit, plain],
      ] as const) {
        if (workspace === noGit) hideGit();
        let cache: StatCacheState | null = withCache ? scanWorkspace(workspace).cache : null;
        for (let index = 0; index < samples; index++) {
          if (workspace === inGit) beforeGit?.();
          const { wall, cpu } = measureOne(() => {
            cache = scanWorkspace(workspace, withCache ? { cache } : {}).cache;
          });
          into.wall.push(wall);
          into.cpu.push(cpu);
        }
        if (workspace === noGit) showGit();
      }
    }
    return { git: median(git.wall), plain: median(plain.wall), cpuRatio: median(git.cpu) / median(plain.cpu) };
  };
  const first = paired(context.quick ? 1 : 2, false);
  const rescan = paired(runs, true);
  let touch = 0;
  // The index rewritten since the last scan (as after `git add`): read again.
  const newIndex = paired(runs, true, () => {
    const time = Date.now() / 1000 - 3600 + touch++;
    utimesSync(indexPath, time, time);
  });
  const tracked = scanWorkspace(inGit).snapshot.has('workspace:node_modules/dep/patched.js');

  const compare = (name: string, figures: { git: number; plain: number; cpuRatio: number }, note: string): BenchResult => ({
    suite,
    name,
    value: figures.git,
    unit: 'ms',
    baseline: { name: 'same scan outside git', value: figures.plain },
    ratio: figures.git / figures.plain,
    goal: 'CPU ≤ 1.15× the scan outside git',
    met: figures.cpuRatio <= 1.15,
    note: `CPU ratio ${figures.cpuRatio.toFixed(2)}; ${note}`,
  });
  results.push(compare(`first scan ${label} git repo`, first, `force-added file under ignored node_modules/ tracked: ${tracked}`));
  results.push(compare(`re-scan unchanged ${label} git repo`, rescan, 'index unchanged: its stat only'));
  results.push(compare(`re-scan ${label} git repo, index rewritten`, newIndex, 'the index parsed again before the scan'));

  const data = readFileSync(indexPath);
  const parsed = await timeMedian(() => parseIndex(readFileSync(indexPath), 20), runs + 4, 2);
  const listed = await timeMedian(() => git('--no-optional-locks', 'ls-files', '-z', '--stage'), runs, 1);
  results.push({
    suite,
    name: `read index ${label} entries`,
    value: parsed,
    unit: 'ms',
    baseline: { name: 'git ls-files -z --stage', value: listed },
    ratio: listed / parsed,
    goal: 'faster than spawning git',
    met: parsed < listed,
    note: `${(data.length / 1024).toFixed(0)} KiB index; ratio = git / parse`,
  });
  return results;
}

const suite: BenchSuite = {
  name: 'git-ignore-scan',
  async run(context) {
    return measure(context, context.quick ? 2_000 : 10_000);
  },
};

export default suite;
