import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookCommand } from '../../../src/integrations/claude/hook-command.js';
import { createProject } from './project-fixture.js';

const CLAUDE_ID = '55555555-5555-4555-8555-555555555555';
const HAS_CURL = spawnSync('/bin/sh', ['-c', 'command -v curl']).status === 0;

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolvePromise) => (child.exitCode !== null ? resolvePromise(child.exitCode) : child.on('close', resolvePromise)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The installed hook command (`sh bin/claude-hook.sh …`), run through a shell as Claude Code runs
 * it. Its Node is a wrapper that counts its starts, so the test sees when an event went to the
 * helper over curl (no Node) and when to the Node client (no helper yet, no curl, a dead helper).
 */
describe.skipIf(!HAS_CURL || process.platform !== 'linux')('the shell hook client (real processes)', () => {
  let fixture: ReturnType<typeof createProject>;
  let starts: string;
  let command: string;
  let socket: string;
  let lock: string;
  let noCurl: string;
  beforeEach(() => {
    fixture = createProject({ 'README.md': 'readme\n', 'src/kept.txt': 'kept\n' });
    starts = join(fixture.dir, 'node-starts');
    const wrapper = join(fixture.dir, 'node-wrapper.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho start >> '${starts}'\nexec '${process.execPath}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    command = hookCommand({ storePath: fixture.storePath, node: wrapper });
    socket = join(fixture.home, '.waypoint', 'claude-hooks', 'helper.sock');
    lock = join(fixture.home, '.waypoint', 'claude-hooks', 'helper.lock');
    // A PATH with what the client needs but no curl.
    noCurl = join(fixture.dir, 'no-curl-bin');
    mkdirSync(noCurl);
    for (const tool of ['cat', 'tr']) symlinkSync(spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(noCurl, tool));
  });
  afterEach(async () => {
    const pid = existsSync(join(lock, 'pid')) ? Number(readFileSync(join(lock, 'pid'), 'utf8')) : 0;
    fixture.cleanup();
    // The helper stops once its store is gone; make sure it did.
    for (let wait = 0; wait < 100 && pid > 0 && alive(pid); wait++) await sleep(100);
  });

  const nodeStarts = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0);
  const hook = async (event: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, WAYPOINT_HOOK_HELPER_IDLE_MS: '60000', ...env },
    });
    child.stdin.end(JSON.stringify({ session_id: CLAUDE_ID, cwd: fixture.project, prompt_id: 'p1', ...event }));
    return exited(child);
  };
  const bashCall = async (id: string, change: () => void, env: NodeJS.ProcessEnv = {}) => {
    const input = { tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'make' } };
    expect(await hook({ hook_event_name: 'PreToolUse', ...input }, env)).toBe(0);
    change();
    expect(await hook({ hook_event_name: 'PostToolUse', ...input, tool_response: {} }, env)).toBe(0);
  };
  const recorded = () =>
    fixture
      .waypoint('checkpoints', CLAUDE_ID, '--json')
      .json()
      .checkpoints.map((row: { source: string; path: string }) => `${row.source} ${row.path}`)
      .sort();
  const helperUp = async () => {
    for (let wait = 0; wait < 300 && !(existsSync(socket) && existsSync(join(lock, 'pid'))); wait++) await sleep(100);
    // Listening once a no-op event goes through without a Node start.
    const before = nodeStarts();
    for (let attempt = 0; attempt < 100; attempt++) {
      await hook({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: `probe${attempt}`, tool_input: {} });
      if (nodeStarts() === before) return Number(readFileSync(join(lock, 'pid'), 'utf8'));
      await sleep(200);
    }
    throw new Error('the helper never answered');
  };

  it('with the helper up, events go over curl and no Node starts; without curl, or with the helper off, the Node client records them', async () => {
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    expect(nodeStarts()).toBe(1);
    await helperUp();
    const before = nodeStarts();
    await bashCall('b1', () => writeFileSync(join(fixture.project, 'src/one.txt'), 'one\n'));
    await bashCall('b2', () => writeFileSync(join(fixture.project, 'src/kept.txt'), 'changed\n'));
    expect(nodeStarts()).toBe(before);
    expect(recorded()).toEqual(['exec workspace:src/kept.txt', 'exec workspace:src/one.txt']);
    await bashCall('b3', () => writeFileSync(join(fixture.project, 'two.txt'), 'two\n'), { PATH: noCurl });
    expect(nodeStarts()).toBe(before + 2);
    await bashCall('b4', () => writeFileSync(join(fixture.project, 'three.txt'), '3\n'), { WAYPOINT_HOOK_HELPER: 'off' });
    expect(nodeStarts()).toBe(before + 4);
    expect(recorded()).toEqual(['exec workspace:src/kept.txt', 'exec workspace:src/one.txt', 'exec workspace:three.txt', 'exec workspace:two.txt']);
    expect(fixture.waypoint('hooks', 'status', '--json').json().failures).toEqual([]);
  });

  it('a change made while the helper was down (SIGKILLed mid-call) is recorded, and the next helper starts from a full scan', async () => {
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    const first = await helperUp();
    const input = { tool_name: 'Bash', tool_use_id: 'k1', tool_input: { command: 'make' } };
    expect(await hook({ hook_event_name: 'PreToolUse', ...input })).toBe(0);
    process.kill(first, 'SIGKILL');
    for (let wait = 0; wait < 300 && alive(first); wait++) await sleep(100);
    // Nobody watches now: the tool's change lands while the helper is dead, its socket left behind.
    writeFileSync(join(fixture.project, 'src/kept.txt'), 'kept, changed while nobody watched\n');
    expect(existsSync(socket)).toBe(true);
    expect(await hook({ hook_event_name: 'PostToolUse', ...input, tool_response: {} })).toBe(0);
    expect(recorded()).toEqual(['exec workspace:src/kept.txt']);
    // The Node client started a new helper: it sees the next call's changes, and the earlier ones stay recorded once.
    const second = await helperUp();
    expect(second).not.toBe(first);
    await bashCall('k2', () => {
      mkdirSync(join(fixture.project, 'deep/a/b/c'), { recursive: true });
      writeFileSync(join(fixture.project, 'deep/a/b/c/d.txt'), 'd\n');
    });
    await bashCall('k3', () => writeFileSync(join(fixture.project, 'deep/a/b/c/d.txt'), 'D\n'));
    expect(recorded()).toEqual(['exec workspace:deep/a/b/c/d.txt', 'exec workspace:deep/a/b/c/d.txt', 'exec workspace:src/kept.txt']);
    expect(fixture.waypoint('hooks', 'status', '--json').json().failures).toEqual([]);
  });
});
