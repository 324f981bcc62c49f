/**
 * What the claude-hook and codex-hook suites share: a generated workspace with a store per
 * variant, a hook command run the way the agent runs it (its shell, the event on stdin), the
 * shadow-git hook they are measured against, one timed tool call (only the two hooks timed), and
 * the samples of interleaved rounds (the first two rounds are warm-up and not kept).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './harness.js';
import { backdate, generateWorkspace } from './workspace-generator.js';

export interface HookVariant {
  name: string;
  command: string;
  env: NodeJS.ProcessEnv;
}

export interface HookWorkspace {
  /** `10k`: the file count as the rows name it. */
  label: string;
  root: string;
  dir: string;
  paths: string[];
  /** An empty transcript (or rollout) file the events name. */
  transcript: string;
  /** The environment every variant starts from: helpers stay up for the whole run. */
  env: NodeJS.ProcessEnv;
  /** A store of its own for each variant, so each has its own resident helper. */
  store(name: string): string;
}

export function hookWorkspace(context: BenchContext, prefix: string): HookWorkspace {
  const fileCount = context.quick ? 2000 : 10_000;
  const root = context.tempDir(prefix);
  const dir = join(root, 'project');
  mkdirSync(dir);
  const paths = generateWorkspace(dir, fileCount);
  backdate(dir);
  const transcript = join(root, 'transcript.jsonl');
  writeFileSync(transcript, '');
  return {
    label: `${fileCount / 1000}k`,
    root,
    dir,
    paths,
    transcript,
    env: { ...process.env, WAYPOINT_HOOK_HELPER_IDLE_MS: '60000' },
    store: (name) => join(root, name, 'waypoint.db'),
  };
}

/** Runs one hook event through `shell -c <command>` with the event (over `base`) on stdin; throws when it fails. */
export function hookRunner(shell: string, base: Record<string, unknown>): (variant: HookVariant, event: Record<string, unknown>) => void {
  return (variant, event) => {
    const result = spawnSync(shell, ['-c', variant.command], { input: JSON.stringify({ ...base, ...event }), env: variant.env });
    if (result.status !== 0) throw new Error(`hook exited ${result.status}: ${result.stderr}`);
  };
}

/**
 * The hook existing checkpoint tools run at both events: `git add -A` + `git write-tree` of the
 * workspace into a separate GIT_DIR, through the same shell, reading the same event.
 */
export function shadowGitHook(workspace: HookWorkspace, shell: string, base: Record<string, unknown>): () => void {
  const gitDir = join(workspace.root, 'shadow.git');
  spawnSync('git', ['init', '-q', '--bare', gitDir]);
  const command = 'git --git-dir="$G" --work-tree="$W" add -A && git --git-dir="$G" --work-tree="$W" write-tree >/dev/null';
  const env = { ...process.env, G: gitDir, W: workspace.dir };
  return () => {
    const result = spawnSync(shell, ['-c', command], { env, input: JSON.stringify(base) });
    if (result.status !== 0) throw new Error('shadow git failed');
  };
}

/** One tool call: its PreToolUse hook, the tool's change (untimed), its PostToolUse hook; the two hooks' time (ms). */
export function timeToolCall(pre: () => void, change: () => void, post: () => void): number {
  const started = process.hrtime.bigint();
  pre();
  const preTime = Number(process.hrtime.bigint() - started);
  change();
  const again = process.hrtime.bigint();
  post();
  return (preTime + Number(process.hrtime.bigint() - again)) / 1e6;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

export function summary(times: readonly number[]): { median: number; p90: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
}

/** Samples by key from interleaved rounds; rounds 0 and 1 are warm-up and not kept. */
export class HookSamples {
  readonly times: Record<string, number[]> = {};

  add(key: string, value: number, round: number): void {
    if (round >= 2) (this.times[key] ??= []).push(value);
  }

  /** Times `fn` (ms) as a sample of `key`. */
  timed(key: string, round: number, fn: () => unknown): void {
    const started = process.hrtime.bigint();
    fn();
    this.add(key, Number(process.hrtime.bigint() - started) / 1e6, round);
  }

  summary(key: string): { median: number; p90: number } {
    return summary(this.times[key]!);
  }

  /** A floor's median, for the notes (ms, one decimal). */
  median(key: string): string {
    return this.summary(key).median.toFixed(1);
  }
}
