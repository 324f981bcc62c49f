/**
 * A Claude Code hook call in the agent's tool loop: the time Waypoint's hook command adds to one
 * tool call (its PreToolUse and PostToolUse commands, run through `sh -c` as Claude Code runs
 * them, process starts included) on a generated workspace, against a shadow-git hook run at the
 * same two events (`git add -A` + `git write-tree` into a separate GIT_DIR, what hook-based
 * checkpoint tools do), measured in the same run, interleaved call by call so load hits all alike.
 *
 * Variants, each with a store of its own (so each has its own resident helper):
 * - `installed`: the command `hooks install` writes (the bash client: one bash process, /dev/tcp to the helper);
 * - `node client`: the Node client alone, to the same kind of helper (`hookCommand({ shell: false })`);
 * - `no tracking`: the installed command, its helper started with `WAYPOINT_HOOK_TRACKING=off`
 *   (every scan lstats the whole tree);
 * - `no helper`: `WAYPOINT_HOOK_HELPER=off` (each event loads the engine and opens the store).
 * Floors, per event, for what cannot be cut: `sh -c true`; the bash client's processes (`sh -c`
 * starting bash) alone; the installed command on an event that needs no work (a read-only tool: the
 * round trip through bash and the helper); `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hookCommand } from '../../src/integrations/claude/hook-command.js';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { HookSamples, type HookVariant, hookRunner, hookWorkspace, shadowGitHook, summary, timeToolCall } from '../hook-harness.js';

async function run(context: BenchContext): Promise<BenchResult[]> {
  const suite = 'claude-hook';
  const workspace = hookWorkspace(context, 'waypoint-claude-hook-');
  const { label, dir, paths, env, store } = workspace;
  const base = { session_id: '0b6f3c1e-9a7d-4c35-8f1e-2d6a4b9c7e10', transcript_path: workspace.transcript, cwd: dir, prompt_id: 'p1' };
  const variants: HookVariant[] = [
    { name: 'installed', command: hookCommand({ storePath: store('installed') }), env },
    { name: 'node client', command: hookCommand({ storePath: store('node'), shell: false }), env },
    { name: 'no tracking', command: hookCommand({ storePath: store('untracked') }), env: { ...env, WAYPOINT_HOOK_TRACKING: 'off' } },
  ];
  const noHelper: HookVariant = { name: 'no helper', command: hookCommand({ storePath: store('alone') }), env: { ...env, WAYPOINT_HOOK_HELPER: 'off' } };
  // Claude Code runs its hook commands through `/bin/sh -c`.
  const hook = hookRunner('/bin/sh', base);
  const shadowHook = shadowGitHook(workspace, '/bin/sh', base);
  // Every store's session starts (the first event also starts that store's helper, and its first
  // scans read every file): not timed.
  for (const variant of [...variants, noHelper]) hook(variant, { hook_event_name: 'UserPromptSubmit', prompt: 'bench' });
  await sleep(3000);
  shadowHook();
  let call = 0;
  const bashInput = { tool_name: 'Bash', tool_input: { command: 'echo >> file' } };
  const writeTarget = join(dir, paths[1]!);
  const writeInput = { tool_name: 'Write', tool_input: { file_path: writeTarget, content: 'x' } };
  /** One tool call through `variant`: the command changes one file between its two hooks; only the hooks are timed (ms). */
  const toolCall = (variant: HookVariant | 'shadow', input: Record<string, unknown>): number => {
    const id = `toolu_${++call}`;
    return timeToolCall(
      () => (variant === 'shadow' ? shadowHook() : hook(variant, { hook_event_name: 'PreToolUse', tool_use_id: id, ...input })),
      () => (input === writeInput ? writeFileSync(writeTarget, `x ${call}\n`) : appendFileSync(join(dir, paths[call % paths.length]!), `// ${call}\n`)),
      () => (variant === 'shadow' ? shadowHook() : hook(variant, { hook_event_name: 'PostToolUse', tool_use_id: id, ...input, tool_response: {} })),
    );
  };
  const runs = context.quick ? 5 : 15;
  const samples = new HookSamples();
  const add = samples.add.bind(samples);
  const timed = samples.timed.bind(samples);
  // Floors, per event: a shell start; the bash client's own processes (sh starting bash) with no
  // helper behind them; the installed command on an event with no work (a read-only tool: one
  // round trip through bash and the helper); a Node start.
  const installed = variants[0]!;
  const readInput = { tool_name: 'Read', tool_input: { file_path: writeTarget } };
  const floors = (round: number) => {
    timed('floor sh', round, () => spawnSync('/bin/sh', ['-c', 'true']));
    timed('floor client processes', round, () => spawnSync('/bin/sh', ['-c', "/bin/bash -c 'IFS= read -r -N 8192 input'"], { input: JSON.stringify(base) }));
    timed('floor round trip', round, () => hook(installed, { hook_event_name: 'PreToolUse', tool_use_id: 'read', ...readInput }));
    timed('floor node', round, () => spawnSync(process.execPath, ['-e', '0']));
  };
  // Two warm-up rounds (the helpers' first scans with tracking read the whole tree), then rounds of
  // one call of each kind through each variant, the shadow-git hook and the floors, in turn.
  for (let round = 0; round < runs + 2; round++) {
    add('shadow', toolCall('shadow', bashInput), round);
    for (const variant of variants) {
      add(`${variant.name} Bash`, toolCall(variant, bashInput), round);
      add(`${variant.name} Write`, toolCall(variant, writeInput), round);
    }
    floors(round);
  }
  // Each event loads the engine: seconds a call under load, so fewer of them.
  for (let round = 0; round < Math.min(runs, 3) + 1; round++) {
    add('no helper Bash', toolCall(noHelper, bashInput), round + 1);
    add('no helper Write', toolCall(noHelper, writeInput), round + 1);
  }
  const shadowTime = samples.summary('shadow');
  const floor = (key: string) => samples.median(key);
  const floorNote = `floors per event (median): sh -c true ${floor('floor sh')} ms; the bash client's processes (sh starting bash, reading the event) ${floor('floor client processes')} ms; a no-work event through the installed command (those + the round trip through the helper) ${floor('floor round trip')} ms; node -e 0 ${floor('floor node')} ms`;
  const results: BenchResult[] = [
    {
      suite,
      name: `shadow-git hook, ${label} files`,
      value: shadowTime.median,
      unit: 'ms',
      note: `Pre+Post; p90 ${shadowTime.p90.toFixed(1)} ms`,
    },
  ];
  // What a tool call costs before any work: two no-work events through the installed command
  // (sh starting bash, the round trip through the helper), as a row with its own ratio.
  const roundTrips = (samples.times['floor round trip'] ?? []).map((value) => 2 * value);
  if (roundTrips.length > 0) {
    const { median, p90 } = summary(roundTrips);
    results.push({
      suite,
      name: 'floor: two no-work events through the installed command',
      value: median,
      unit: 'ms',
      baseline: { name: 'shadow-git hook at both events (median)', value: shadowTime.median },
      ratio: median / shadowTime.median,
      note: `a read-only tool's PreToolUse twice: what any Pre+Post pair costs before the helper does work; p90 ${p90.toFixed(1)} ms`,
    });
  }
  for (const name of ['installed', 'node client', 'no tracking', 'no helper']) {
    for (const tool of ['Bash', 'Write']) {
      const { median, p90 } = samples.summary(`${name} ${tool}`);
      const headline = name === 'installed';
      results.push({
        suite,
        name: `${tool} call, ${label} files, ${name}`,
        value: median,
        unit: 'ms',
        baseline: { name: 'shadow-git hook at both events (median)', value: shadowTime.median },
        ratio: median / shadowTime.median,
        ...(headline ? { goal: '≤ 0.33 and < 100 ms', met: median / shadowTime.median <= 1 / 3 && median < 100 } : {}),
        note: `Pre+Post, process starts included; p90 ${p90.toFixed(1)} ms (ratio ${(p90 / shadowTime.p90).toFixed(2)} at p90)${headline ? `; ${floorNote}` : ''}`,
      });
    }
  }
  return results;
}

const claudeHook: BenchSuite = { name: 'claude-hook', run };
export default claudeHook;
