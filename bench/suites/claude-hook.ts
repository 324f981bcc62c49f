/**
 * A Claude Code hook call in the agent's tool loop: the time Waypoint's hook command adds to one
 * tool call (its PreToolUse and PostToolUse processes, start-up included) on a generated workspace,
 * against a shadow-git hook run at the same two events (`git add -A` + `git write-tree` into a
 * separate GIT_DIR, what hook-based checkpoint tools do), measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { timeMedian, type BenchContext, type BenchResult, type BenchSuite } from '../harness.js';
import { backdate, generateWorkspace } from '../workspace-generator.js';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'waypoint.js');

async function run(context: BenchContext): Promise<BenchResult[]> {
  const suite = 'claude-hook';
  const fileCount = context.quick ? 2000 : 10_000;
  const label = `${fileCount / 1000}k`;
  const root = context.tempDir('waypoint-claude-hook-');
  const dir = join(root, 'project');
  mkdirSync(dir);
  const paths = generateWorkspace(dir, fileCount);
  backdate(dir);
  const storePath = join(root, 'home', 'waypoint.db');
  const transcript = join(root, 'transcript.jsonl');
  writeFileSync(transcript, '');
  const base = { session_id: '0b6f3c1e-9a7d-4c35-8f1e-2d6a4b9c7e10', transcript_path: transcript, cwd: dir, prompt_id: 'p1' };
  let helper = 'on';
  const hook = (event: Record<string, unknown>) => {
    const result = spawnSync(process.execPath, [BIN, 'hooks', 'run', 'claude', '--store', storePath], {
      input: JSON.stringify({ ...base, ...event }),
      env: { ...process.env, WAYPOINT_HOOK_HELPER: helper, WAYPOINT_HOOK_HELPER_IDLE_MS: '5000' },
    });
    if (result.status !== 0) throw new Error(`hook exited ${result.status}: ${result.stderr}`);
  };
  const gitDir = join(root, 'shadow.git');
  spawnSync('git', ['init', '-q', '--bare', gitDir]);
  const shadowHook = () => {
    const result = spawnSync('sh', ['-c', `git --git-dir="$G" --work-tree="$W" add -A && git --git-dir="$G" --work-tree="$W" write-tree`], {
      env: { ...process.env, G: gitDir, W: dir },
      stdio: ['pipe', 'ignore', 'ignore'],
      input: JSON.stringify(base),
    });
    if (result.status !== 0) throw new Error('shadow git failed');
  };
  const runs = context.quick ? 3 : 9;
  let call = 0;
  // One tool call: its command changes one file between the two hooks; only the hooks are timed.
  const samples = async (pre: (id: string) => void, post: (id: string) => void, warmup: number) => {
    const times: number[] = [];
    for (let index = 0; index < warmup + runs; index++) {
      const id = `toolu_${++call}`;
      const started = process.hrtime.bigint();
      pre(id);
      const preTime = Number(process.hrtime.bigint() - started);
      appendFileSync(join(dir, paths[call % paths.length]!), `// ${call}\n`);
      const again = process.hrtime.bigint();
      post(id);
      if (index >= warmup) times.push((preTime + Number(process.hrtime.bigint() - again)) / 1e6);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  };
  hook({ hook_event_name: 'UserPromptSubmit', prompt: 'bench' });
  // The first event started the helper (and was handled in its own process); let it come up.
  await new Promise((resolveWait) => setTimeout(resolveWait, 3000));
  const bashInput = { tool_name: 'Bash', tool_input: { command: 'echo >> file' } };
  const ours = await samples(
    (id) => hook({ hook_event_name: 'PreToolUse', tool_use_id: id, ...bashInput }),
    (id) => hook({ hook_event_name: 'PostToolUse', tool_use_id: id, ...bashInput, tool_response: {} }),
    2,
  );
  helper = 'off';
  const alone = await samples(
    (id) => hook({ hook_event_name: 'PreToolUse', tool_use_id: id, ...bashInput }),
    (id) => hook({ hook_event_name: 'PostToolUse', tool_use_id: id, ...bashInput, tool_response: {} }),
    1,
  );
  helper = 'on';
  const shadow = await samples(shadowHook, shadowHook, 2);
  const writeTarget = join(dir, paths[1]!);
  const writeInput = { tool_name: 'Write', tool_input: { file_path: writeTarget, content: 'x' } };
  const write = await samples(
    (id) => hook({ hook_event_name: 'PreToolUse', tool_use_id: id, ...writeInput }),
    (id) => hook({ hook_event_name: 'PostToolUse', tool_use_id: id, ...writeInput, tool_response: {} }),
    1,
  );
  const nodeStart = await timeMedian(() => spawnSync(process.execPath, ['-e', '0']), runs, 1);
  const note = `Pre+Post, process start included; node -e 0 alone: ${nodeStart.toFixed(1)} ms`;
  return [
    {
      suite,
      name: `Bash call, ${label} files`,
      value: ours,
      unit: 'ms',
      baseline: { name: 'shadow-git hook at both events', value: shadow },
      ratio: ours / shadow,
      goal: '≤ 0.33',
      met: ours / shadow <= 1 / 3,
      note,
    },
    { suite, name: `Bash call, ${label} files, absolute`, value: ours, unit: 'ms', goal: '< 100 ms', met: ours < 100, note },
    {
      suite,
      name: `Bash call, ${label} files, no helper`,
      value: alone,
      unit: 'ms',
      baseline: { name: 'shadow-git hook at both events', value: shadow },
      ratio: alone / shadow,
      note: 'WAYPOINT_HOOK_HELPER=off: each hook loads the engine and opens the store',
    },
    {
      suite,
      name: `Write call, ${label} files`,
      value: write,
      unit: 'ms',
      baseline: { name: 'shadow-git hook at both events', value: shadow },
      ratio: write / shadow,
      note,
    },
  ];
}

const claudeHook: BenchSuite = { name: 'claude-hook', run };
export default claudeHook;
