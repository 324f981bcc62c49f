import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alive, exited } from './helper-fixture.js';
import { createProject } from './project-fixture.js';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'waypoint.js');
const CLAUDE_ID = '44444444-4444-4444-8444-444444444444';
// Long enough that a loaded machine's slow process starts never outlast it between two events of one test.
const ENV = { ...process.env, WAYPOINT_HOOK_HELPER_IDLE_MS: '12000' };

describe("the hooks' resident helper (real processes)", () => {
  let fixture: ReturnType<typeof createProject>;
  let lock: string;
  let endpoint: string;
  beforeEach(() => {
    fixture = createProject({ 'README.md': 'readme\n' });
    lock = join(fixture.home, '.waypoint', 'claude-hooks', 'helper.lock');
    endpoint = join(fixture.home, '.waypoint', 'claude-hooks', 'helper.port');
  });
  afterEach(() => fixture.cleanup());

  const hook = async (event: Record<string, unknown>) => {
    const child = spawn(process.execPath, [BIN, 'hooks', 'run', 'claude', '--store', fixture.storePath], { stdio: ['pipe', 'ignore', 'ignore'], env: ENV });
    child.stdin.end(JSON.stringify({ session_id: CLAUDE_ID, cwd: fixture.project, prompt_id: 'p1', ...event }));
    return exited(child);
  };
  const write = (id: string, path: string) => ({ tool_name: 'Write', tool_use_id: id, tool_input: { file_path: join(fixture.project, path), content: '' } });
  const recorded = () =>
    fixture
      .waypoint('checkpoints', CLAUDE_ID, '--json')
      .json()
      .checkpoints.map((row: { path: string }) => row.path);

  it('started by the first event, one per store however many start at once; it records the next events, then stops when idle', async () => {
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    // Four more starts at once, beside the one the first event started: one helper stays.
    const extra = [1, 2, 3, 4].map(() =>
      spawn(process.execPath, [BIN, 'hooks', 'serve', 'claude', '--store', fixture.storePath], { stdio: 'ignore', env: ENV }),
    );
    for (let wait = 0; wait < 300 && !existsSync(endpoint); wait++) await sleep(100);
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    expect(alive(pid)).toBe(true);
    // Every start but the helper's own ends by itself, soon.
    const others = extra.filter((child) => child.pid !== pid);
    await Promise.race([Promise.all(others.map(exited)), sleep(30_000)]);
    expect(others.map((child) => child.exitCode)).toEqual(others.map(() => 0));
    expect(await hook({ hook_event_name: 'PreToolUse', ...write('w1', 'a.txt') })).toBe(0);
    writeFileSync(join(fixture.project, 'a.txt'), 'a\n');
    expect(await hook({ hook_event_name: 'PostToolUse', ...write('w1', 'a.txt') })).toBe(0);
    expect(recorded()).toEqual(['workspace:a.txt']);
    expect(alive(pid)).toBe(true);
    for (let wait = 0; wait < 900 && alive(pid); wait++) await sleep(100);
    expect(alive(pid)).toBe(false);
    expect(existsSync(endpoint)).toBe(false);
    expect(existsSync(lock)).toBe(false);
  });

  it('a helper killed with SIGKILL leaves a stale endpoint file: the next event is still recorded, and a new helper takes over', async () => {
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    for (let wait = 0; wait < 300 && !existsSync(endpoint); wait++) await sleep(100);
    const first = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    process.kill(first, 'SIGKILL');
    for (let wait = 0; wait < 300 && alive(first); wait++) await sleep(100);
    expect(existsSync(endpoint)).toBe(true);
    expect(await hook({ hook_event_name: 'PreToolUse', ...write('w1', 'b.txt') })).toBe(0);
    writeFileSync(join(fixture.project, 'b.txt'), 'b\n');
    expect(await hook({ hook_event_name: 'PostToolUse', ...write('w1', 'b.txt') })).toBe(0);
    expect(recorded()).toEqual(['workspace:b.txt']);
    for (let wait = 0; wait < 300 && !existsSync(join(lock, 'pid')); wait++) await sleep(100);
    const second = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
    expect(fixture.waypoint('hooks', 'status', '--json').json().failures).toEqual([]);
  });
});
