/**
 * Stored patch size against git's own diff of the same change: a generated package-lock-like file
 * (14,087 lines, ~600 KB) with 175 lines changed (an ordinary dependency bump), 3,000 lines changed
 * (a large update) and every integrity hash changed (2,012 lines). Each stored patch (`unifiedPatch`) is compared in bytes with
 * `git diff --no-index` of the same two files, and, for the 175-line change, with the whole-file
 * patch the 256-character edit limit used to store. Times are the median of a few runs, next to
 * git's own diff (a process, so its start is included; a note, not a goal).
 */
import { spawnSync } from 'node:child_process';
import { createTwoFilesPatch } from 'diff';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unifiedPatch } from '../../src/checkpoint/index.js';
import { timeMedian, type BenchContext, type BenchResult, type BenchSuite } from '../harness.js';

const SUITE = 'text-patch';

function lockFile(lines: number, seed: string): string {
  const out: string[] = [];
  for (let index = 0; out.length < lines; index++) {
    const hash = createHash('sha512').update(`${seed}:${index}`).digest('base64');
    out.push(
      `    "node_modules/pkg-${index}": {`,
      `      "version": "1.${index % 13}.${index % 5}",`,
      `      "resolved": "https://registry.example/pkg-${index}/-/pkg-${index}-1.${index % 13}.${index % 5}.tgz",`,
      `      "integrity": "sha512-${hash}",`,
      '      "dev": true,',
      '      "license": "MIT"',
      '    },',
    );
  }
  return `${out.slice(0, lines).join('\n')}\n`;
}

/** Bumps `count` version lines spread through the file (and their integrity lines, as npm does). */
function bump(text: string, count: number): string {
  const lines = text.split('\n');
  const blocks = Math.floor((lines.length - 1) / 7);
  for (let index = 0; index < count / 2; index++) {
    const block = Math.floor(((index + 0.5) * blocks) / (count / 2));
    lines[block * 7 + 1] = lines[block * 7 + 1]!.replace(/"1\./, '"2.');
    lines[block * 7 + 3] = `      "integrity": "sha512-${createHash('sha512').update(`bumped:${block}`).digest('base64')}",`;
  }
  return lines.join('\n');
}

function gitDiff(dir: string, before: string, after: string): { bytes: number; changed: number } {
  writeFileSync(join(dir, 'a'), before);
  writeFileSync(join(dir, 'b'), after);
  const run = spawnSync('git', ['diff', '--no-index', '--no-color', 'a', 'b'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 1) throw new Error(`git diff --no-index failed: ${run.stderr}`);
  return { bytes: Buffer.byteLength(run.stdout), changed: changedLines(run.stdout) };
}

function changedLines(patch: string): number {
  return patch.split('\n').filter((line) => /^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line)).length;
}

async function measure(dir: string, name: string, before: string, after: string, runs: number): Promise<BenchResult[]> {
  const patch = unifiedPatch('package-lock.json', Buffer.from(before), Buffer.from(after))!;
  const bytes = Buffer.byteLength(patch);
  const git = gitDiff(dir, before, after);
  const patchMs = await timeMedian(() => unifiedPatch('package-lock.json', Buffer.from(before), Buffer.from(after)), runs, 1);
  const gitMs = await timeMedian(() => gitDiff(dir, before, after), runs, 1);
  return [
    {
      suite: SUITE,
      name: `${name}: stored patch bytes`,
      value: bytes,
      unit: 'bytes',
      baseline: { name: 'git diff --no-index', value: git.bytes },
      ratio: bytes / git.bytes,
      goal: '≤ 1.1× git diff',
      met: bytes <= git.bytes * 1.1,
      note: `${changedLines(patch)} changed lines stored, git ${git.changed}; file ${(before.length / 1024).toFixed(0)} KiB`,
    },
    {
      suite: SUITE,
      name: `${name}: patch time`,
      value: patchMs,
      unit: 'ms',
      baseline: { name: 'git diff --no-index (process)', value: gitMs },
      ratio: patchMs / gitMs,
      note: `median of ${runs}`,
    },
  ];
}

/** The everyday case: one line of a 13 KB source file edited, against the `diff` package's patch as stored before. */
async function smallEdit(): Promise<BenchResult> {
  const lines = Array.from({ length: 250 }, (_, index) => `  const value${index} = compute(${index}, options); // line ${index}`);
  const before = Buffer.from(`${lines.join('\n')}\n`);
  lines[120] = '  edited();';
  const after = Buffer.from(`${lines.join('\n')}\n`);
  const batch = (fn: () => unknown) => () => {
    for (let index = 0; index < 200; index++) fn();
  };
  const ours =
    (await timeMedian(
      batch(() => unifiedPatch('f', before, after)),
      7,
      2,
    )) / 200;
  const previous =
    (await timeMedian(
      batch(() => createTwoFilesPatch('a/f', 'b/f', before.toString('utf8'), after.toString('utf8'), undefined, undefined, { maxEditLength: 256 })),
      7,
      2,
    )) / 200;
  return {
    suite: SUITE,
    name: 'one-line edit of a 13 KB file: patch time',
    value: ours,
    unit: 'ms',
    baseline: { name: 'diff package, edit limit 256 (before)', value: previous },
    ratio: ours / previous,
    goal: 'not slower',
    met: ours <= previous * 1.1,
    note: 'median of 7 batches of 200',
  };
}

export default {
  name: SUITE,
  async run(context: BenchContext): Promise<BenchResult[]> {
    const dir = context.tempDir('waypoint-bench-patch-');
    const lines = context.quick ? 3000 : 14_087;
    const runs = context.quick ? 3 : 7;
    const before = lockFile(lines, 'v1');
    const small = bump(before, 175);
    const results = await measure(dir, `lock file ${lines} lines, 175 changed`, before, small, runs);
    // What the 256-character edit limit stored for the same change: every line removed and added again.
    const wholeFile = before.split('\n').length - 1 + small.split('\n').length - 1;
    const wholeBytes = Buffer.byteLength(before) + Buffer.byteLength(small) + 2 * wholeFile;
    results.push({
      suite: SUITE,
      name: `lock file ${lines} lines, 175 changed: whole-file patch (before)`,
      value: wholeBytes,
      unit: 'bytes',
      baseline: { name: 'git diff --no-index', value: gitDiff(dir, before, small).bytes },
      ratio: wholeBytes / gitDiff(dir, before, small).bytes,
      note: `${wholeFile} changed lines, as stored before line diffs`,
    });
    results.push(...(await measure(dir, `lock file ${lines} lines, 3000 changed`, before, bump(before, 3000), runs)));
    results.push(...(await measure(dir, `lock file ${lines} lines, every hash changed`, before, lockFile(lines, 'v2'), runs)));
    results.push(await smallEdit());
    return results;
  },
} satisfies BenchSuite;
