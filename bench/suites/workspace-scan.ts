/**
 * Shell-command coverage: scanning a generated workspace with the stat cache
 * against a shadow git repository (`git --git-dir=<tmp> --work-tree=<ws> add -A` + `write-tree`, the
 * way Cline, Gemini CLI and OpenCode snapshot), all measured in the same run.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { timeMedian, type BenchContext, type BenchResult, type BenchSuite } from '../harness.js';
import { backdate, generateWorkspace } from '../workspace-generator.js';
import { scanWorkspace, Workspace, type StatCacheState } from '../../src/workspace/index.js';

function lstatFloor(dir: string): number {
  let count = 0;
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = `${current}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else {
        lstatSync(path);
        count++;
      }
    }
  };
  walk(dir);
  return count;
}

async function measure(context: BenchContext, fileCount: number): Promise<BenchResult[]> {
  const suite = 'workspace-scan';
  const label = `${fileCount / 1000}k`;
  const dir = context.tempDir('waypoint-scan-ws-');
  const paths = generateWorkspace(dir, fileCount);
  backdate(dir);
  const workspace = new Workspace({ roots: [{ name: 'workspace', dir, kind: 'workspace' }] });
  const git = (gitDir: string, ...args: string[]) =>
    execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${dir}`, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const runs = context.quick ? 3 : 5;
  const results: BenchResult[] = [];

  // (a) first snapshot: every file read and hashed, no cache; git from an empty repository each time.
  let bytes = 0;
  const firstScan = await timeMedian(
    () => {
      const result = scanWorkspace(workspace);
      bytes = result.stats.hashedBytes;
    },
    runs,
    1,
  );
  let gitRun = 0;
  const gitFirst = await timeMedian(
    () => {
      const gitDir = join(context.tempDir('waypoint-scan-git-'), `g${gitRun++}`);
      execFileSync('git', ['init', '-q', '--bare', gitDir]);
      git(gitDir, 'add', '-A');
      git(gitDir, 'write-tree');
    },
    context.quick ? 1 : 3,
    0,
  );
  results.push({
    suite,
    name: `first scan ${label} files`,
    value: firstScan,
    unit: 'ms',
    baseline: { name: 'git add -A + write-tree', value: gitFirst },
    ratio: gitFirst / firstScan,
    goal: '≥ 4× faster than git',
    met: gitFirst / firstScan >= 4,
    note: `${(bytes / 1024 / 1024).toFixed(0)} MiB read+hashed; blob writes come with the checkpoint layer, not measured here`,
  });

  // (b) re-scan unchanged vs git re-snapshot of the same shadow repository.
  const gitDir = join(context.tempDir('waypoint-scan-git-'), 'shadow');
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  git(gitDir, 'add', '-A');
  git(gitDir, 'write-tree');
  let cache: StatCacheState = scanWorkspace(workspace).cache;
  let hashed = 0;
  const rescan = await timeMedian(
    () => {
      const result = scanWorkspace(workspace, { cache });
      hashed = result.stats.hashed;
      cache = result.cache;
    },
    runs + 2,
    1,
  );
  const gitRescan = await timeMedian(
    () => {
      git(gitDir, 'add', '-A');
      git(gitDir, 'write-tree');
    },
    runs + 2,
    1,
  );
  results.push({
    suite,
    name: `re-scan unchanged ${label}`,
    value: rescan,
    unit: 'ms',
    baseline: { name: 'git add -A + write-tree', value: gitRescan },
    ratio: gitRescan / rescan,
    goal: 'no slower than git',
    met: rescan <= gitRescan,
    note: `${hashed} files re-hashed`,
  });

  // (c) re-scan after 5 edits: each sample edits 5 files, then scans (ours) / re-snapshots (git).
  let edit = 0;
  const editFive = () => {
    for (let index = 0; index < 5; index++) {
      const path = paths[((edit * 5 + index) * 7) % paths.length]!;
      writeFileSync(join(dir, path), `edited ${edit} ${index}\n`.repeat(100));
    }
    edit++;
  };
  const editedScan = await timeMedian(
    () => {
      editFive();
      const result = scanWorkspace(workspace, { cache });
      hashed = result.stats.hashed;
      cache = result.cache;
    },
    runs + 2,
    1,
  );
  const gitEdited = await timeMedian(
    () => {
      editFive();
      git(gitDir, 'add', '-A');
      git(gitDir, 'write-tree');
    },
    runs + 2,
    1,
  );
  results.push({
    suite,
    name: `re-scan after 5 edits ${label}`,
    value: editedScan,
    unit: 'ms',
    baseline: { name: 'git add -A + write-tree', value: gitEdited },
    ratio: gitEdited / editedScan,
    goal: 'no slower than git',
    met: editedScan <= gitEdited,
    note: `${hashed} files re-hashed (the edits, plus the previous sample's edits still inside the racy window); includes writing the 5 files on both sides`,
  });

  // (d) the floor: a bare readdir + lstat loop over the same tree (ignored dirs included).
  let seen = 0;
  const floor = await timeMedian(
    () => {
      seen = lstatFloor(dir);
    },
    runs + 2,
    1,
  );
  results.push({
    suite,
    name: `lstat floor ${label}`,
    value: floor,
    unit: 'ms',
    baseline: { name: 're-scan unchanged', value: rescan },
    ratio: rescan / floor,
    note: `readdirSync + lstatSync over ${seen} files; ratio = re-scan / floor`,
  });
  return results;
}

const suite: BenchSuite = {
  name: 'workspace-scan',
  async run(context) {
    const results = await measure(context, context.quick ? 2_000 : 10_000);
    if (!context.quick) results.push(...(await measure(context, 50_000)));
    return results;
  },
};

export default suite;
