/**
 * A Codex CLI hook call in the agent's tool loop: the time Waypoint's hook commands add to one
 * tool call (its PreToolUse and PostToolUse commands, run through `/bin/bash -c` as Codex runs
 * them, process starts included) on a generated workspace, against a shadow-git hook run at the
 * same two events (`git add -A` + `git write-tree` into a separate GIT_DIR), measured in the same
 * run, interleaved call by call so load hits all alike (the method of the claude-hook suite).
 *
 * Variants, each with a store of its own (so each has its own resident helper):
 * - `installed`: the command `hooks install codex` writes (the bash client: one bash process,
 *   /dev/tcp to the store's resident helper, which tracks changes with inotify);
 * - `node client`: the Node client alone, to the same kind of helper (`codexHookCommand({ shell: false })`);
 * - `one process per event`: `WAYPOINT_HOOK_HELPER=off`, each event loading the engine, opening the
 *   store and scanning the whole tree — what every Codex event cost before it went through the helper.
 * Calls: a shell command (`Bash`: scanned before and after) and an `apply_patch` of one file (that
 * file read before and after). Floors, per event: `bash -c true`, and `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { codexHookCommand } from '../../src/integrations/codex/codex-hooks-file.js';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { HookSamples, type HookVariant, hookRunner, hookWorkspace, shadowGitHook, timeToolCall } from '../hook-harness.js';

async function run(context: BenchContext): Promise<BenchResult[]> {
  const suite = 'codex-hook';
  const workspace = hookWorkspace(context, 'waypoint-codex-hook-');
  const { label, dir, paths, env, store } = workspace;
  // Codex names its rollout in `transcript_path`.
  const base = { session_id: '019a0000-0000-7000-8000-0000000be4c1', transcript_path: workspace.transcript, cwd: dir, turn_id: 'turn-1' };
  const variants: HookVariant[] = [
    { name: 'installed', command: codexHookCommand({ storePath: store('installed') }), env },
    { name: 'node client', command: codexHookCommand({ storePath: store('node'), shell: false }), env },
  ];
  const perEvent: HookVariant = {
    name: 'one process per event',
    command: codexHookCommand({ storePath: store('alone') }),
    env: { ...env, WAYPOINT_HOOK_HELPER: 'off' },
  };
  // Codex runs its hook commands through `/bin/bash -c`.
  const hook = hookRunner('/bin/bash', base);
  const shadowHook = shadowGitHook(workspace, '/bin/bash', base);
  // Every store's session starts (the first event also starts that store's helper, and its first
  // scans read every file): not timed.
  for (const variant of [...variants, perEvent]) hook(variant, { hook_event_name: 'UserPromptSubmit', prompt: 'bench' });
  await sleep(3000);
  shadowHook();
  let call = 0;
  const shellInput = { tool_name: 'Bash', tool_input: { command: 'echo >> file' } };
  const patched = paths[1]!;
  const patchInput = { tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Update File: ${patched}\n@@\n-a\n+b\n*** End Patch\n` } };
  /** One tool call through `variant`: the tool changes one file between its two hooks; only the hooks are timed (ms). */
  const toolCall = (variant: HookVariant | 'shadow', input: Record<string, unknown>): number => {
    const id = `call_${++call}`;
    return timeToolCall(
      () => (variant === 'shadow' ? shadowHook() : hook(variant, { hook_event_name: 'PreToolUse', tool_use_id: id, ...input })),
      () => appendFileSync(join(dir, input === patchInput ? patched : paths[call % paths.length]!), `// ${call}\n`),
      () => (variant === 'shadow' ? shadowHook() : hook(variant, { hook_event_name: 'PostToolUse', tool_use_id: id, ...input, tool_response: '' })),
    );
  };
  const runs = context.quick ? 5 : 15;
  const samples = new HookSamples();
  const add = samples.add.bind(samples);
  // Two warm-up rounds (the helpers' first tracked scans read the whole tree), then rounds of one
  // call of each kind through each variant, the shadow-git hook and the floors, in turn.
  for (let round = 0; round < runs + 2; round++) {
    add('shadow', toolCall('shadow', shellInput), round);
    for (const variant of variants) {
      add(`${variant.name} shell`, toolCall(variant, shellInput), round);
      add(`${variant.name} apply_patch`, toolCall(variant, patchInput), round);
    }
    samples.timed('floor bash', round, () => spawnSync('/bin/bash', ['-c', 'true']));
    samples.timed('floor node', round, () => spawnSync(process.execPath, ['-e', '0']));
  }
  // Each event loads the engine and scans the whole tree: seconds a call under load, so fewer of them.
  for (let round = 0; round < Math.min(runs, 3) + 1; round++) {
    add(`${perEvent.name} shell`, toolCall(perEvent, shellInput), round + 1);
    add(`${perEvent.name} apply_patch`, toolCall(perEvent, patchInput), round + 1);
  }
  const shadowTime = samples.summary('shadow');
  const floorNote = `floors per event (median): bash -c true ${samples.median('floor bash')} ms; node -e 0 ${samples.median('floor node')} ms`;
  const results: BenchResult[] = [
    { suite, name: `shadow-git hook, ${label} files`, value: shadowTime.median, unit: 'ms', note: `Pre+Post; p90 ${shadowTime.p90.toFixed(1)} ms` },
  ];
  const before = samples.summary(`${perEvent.name} shell`).median;
  for (const name of ['installed', 'node client', perEvent.name]) {
    for (const tool of ['shell', 'apply_patch']) {
      const { median, p90 } = samples.summary(`${name} ${tool}`);
      const headline = name === 'installed' && tool === 'shell';
      results.push({
        suite,
        name: `${tool} call, ${label} files, ${name}`,
        value: median,
        unit: 'ms',
        baseline: { name: 'shadow-git hook at both events (median)', value: shadowTime.median },
        ratio: median / shadowTime.median,
        ...(headline ? { goal: '≤ 0.33 of shadow git and < 100 ms', met: median / shadowTime.median <= 1 / 3 && median < 100 } : {}),
        note: `Pre+Post, process starts included; p90 ${p90.toFixed(1)} ms${headline ? `; ${(before / median).toFixed(1)}× faster than one process per event; ${floorNote}` : ''}`,
      });
    }
  }
  return results;
}

const codexHook: BenchSuite = { name: 'codex-hook', run };
export default codexHook;
