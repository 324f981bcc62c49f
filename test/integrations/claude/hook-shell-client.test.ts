import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookCommand } from '../../../src/integrations/claude/hook-command.js';
import { alive, exited, helperProject } from './helper-fixture.js';

const CLAUDE_ID = '55555555-5555-4555-8555-555555555555';
const HAS_BASH = existsSync('/bin/bash');

/**
 * The installed hook command (`/bin/bash bin/claude-hook.bash …`), run through `/bin/sh -c` as
 * Claude Code runs it. Its Node is a wrapper that counts its starts, so the test sees when an event
 * went to the helper from bash alone (no Node) and when to the Node client (no helper yet, the
 * helper off, a dead helper, a stranger on the helper's port).
 */
describe.skipIf(!HAS_BASH || process.platform !== 'linux')('the bash hook client (real processes)', () => {
  let helper: ReturnType<typeof helperProject>;
  let fixture: ReturnType<typeof helperProject>['fixture'];
  let command: string;
  let endpoint: string;
  let lock: string;
  let nodeStarts: () => number;
  beforeEach(() => {
    helper = helperProject({ 'README.md': 'readme\n', 'src/kept.txt': 'kept\n' });
    ({ fixture, endpoint, lock, nodeStarts } = helper);
    command = hookCommand({ storePath: fixture.storePath, node: helper.node });
  });
  afterEach(() => helper.cleanup());

  const hook = async (event: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, WAYPOINT_HOOK_HELPER_IDLE_MS: '60000', ...env },
    });
    child.stdin.end(JSON.stringify({ session_id: CLAUDE_ID, cwd: fixture.project, prompt_id: 'p1', ...event }));
    return exited(child);
  };
  const bashCall = async (id: string, change: () => void, env: NodeJS.ProcessEnv = {}, response: Record<string, unknown> = {}) => {
    const input = { tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'make' } };
    expect(await hook({ hook_event_name: 'PreToolUse', ...input }, env)).toBe(0);
    change();
    expect(await hook({ hook_event_name: 'PostToolUse', ...input, tool_response: response }, env)).toBe(0);
  };
  const recorded = () =>
    fixture
      .waypoint('checkpoints', CLAUDE_ID, '--json')
      .json()
      .checkpoints.map((row: { source: string; path: string }) => `${row.source} ${row.path}`)
      .sort();
  const helperUp = async () => {
    for (let wait = 0; wait < 300 && !(existsSync(endpoint) && existsSync(join(lock, 'pid'))); wait++) await sleep(100);
    // Listening once a no-op event goes through without a Node start.
    const before = nodeStarts();
    for (let attempt = 0; attempt < 100; attempt++) {
      await hook({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: `probe${attempt}`, tool_input: {} });
      if (nodeStarts() === before) return Number(readFileSync(join(lock, 'pid'), 'utf8'));
      await sleep(200);
    }
    throw new Error('the helper never answered');
  };

  it('with the helper up, events go from bash alone and no Node starts; with the helper off, the Node client records them', async () => {
    expect(command.startsWith('/bin/bash ')).toBe(true);
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    expect(nodeStarts()).toBe(1);
    await helperUp();
    const before = nodeStarts();
    await bashCall('b1', () => writeFileSync(join(fixture.project, 'src/one.txt'), 'one\n'));
    await bashCall('b2', () => writeFileSync(join(fixture.project, 'src/kept.txt'), 'changed\n'));
    expect(nodeStarts()).toBe(before);
    expect(recorded()).toEqual(['exec workspace:src/kept.txt', 'exec workspace:src/one.txt']);
    // A large event (tool output past the 8 KiB bash reads itself, multi-byte characters) goes whole.
    const big = `${'é'.repeat(6000)}\n\n`;
    await bashCall('b3', () => writeFileSync(join(fixture.project, 'two.txt'), 'two\n'), {}, { stdout: big });
    expect(nodeStarts()).toBe(before);
    await bashCall('b4', () => writeFileSync(join(fixture.project, 'three.txt'), '3\n'), { WAYPOINT_HOOK_HELPER: 'off' });
    expect(nodeStarts()).toBe(before + 2);
    expect(recorded()).toEqual(['exec workspace:src/kept.txt', 'exec workspace:src/one.txt', 'exec workspace:three.txt', 'exec workspace:two.txt']);
    // The endpoint file holds the tokens: its owner alone may read it.
    expect(statSync(endpoint).mode & 0o777).toBe(0o600);
    expect(fixture.waypoint('hooks', 'status', '--json').json().failures).toEqual([]);
  }, 240_000);

  it('a change made while the helper was down (SIGKILLed mid-call) is recorded, and the next helper starts from a full scan', async () => {
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    const first = await helperUp();
    const input = { tool_name: 'Bash', tool_use_id: 'k1', tool_input: { command: 'make' } };
    expect(await hook({ hook_event_name: 'PreToolUse', ...input })).toBe(0);
    process.kill(first, 'SIGKILL');
    for (let wait = 0; wait < 300 && alive(first); wait++) await sleep(100);
    // Nobody watches now: the tool's change lands while the helper is dead, its endpoint file left behind.
    writeFileSync(join(fixture.project, 'src/kept.txt'), 'kept, changed while nobody watched\n');
    expect(existsSync(endpoint)).toBe(true);
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
  }, 240_000);

  it('a wrong client token is refused and records nothing; a stranger on the port gets no token and no event, and the event is still recorded', async () => {
    expect(await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })).toBe(0);
    await helperUp();
    const [port, serverToken, clientToken] = readFileSync(endpoint, 'utf8').trim().split(' ');
    const talk = (token: string, event: Record<string, unknown>) =>
      new Promise<string>((resolvePromise, reject) => {
        let received = '';
        const connection = connect(Number(port), '127.0.0.1');
        connection.setEncoding('utf8');
        connection.on('data', (chunk: string) => {
          if (received === '' && chunk.startsWith(`${serverToken}\n`))
            connection.write(`${token}\n${JSON.stringify({ session_id: CLAUDE_ID, cwd: fixture.project, prompt_id: 'p1', ...event })}\0`);
          received += chunk;
        });
        connection.on('error', reject);
        connection.on('close', () => resolvePromise(received.slice(serverToken!.length + 1)));
      });
    const input = { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'make' } };
    const wrong = `${clientToken!.slice(0, -1)}${clientToken!.endsWith('0') ? '1' : '0'}`;
    expect(await talk(wrong, { hook_event_name: 'PreToolUse', ...input })).toBe('denied\n');
    writeFileSync(join(fixture.project, 'denied.txt'), 'x\n');
    expect(await talk(wrong, { hook_event_name: 'PostToolUse', ...input, tool_response: {} })).toBe('denied\n');
    expect(await talk('', { hook_event_name: 'PostToolUse', ...input, tool_response: {} })).toBe('denied\n');
    expect(recorded()).toEqual([]);
    // The right token: the same protocol records the call (the earlier change was made outside any call the helper took).
    await talk(clientToken!, { hook_event_name: 'PreToolUse', ...input, tool_use_id: 't2' });
    writeFileSync(join(fixture.project, 'allowed.txt'), 'y\n');
    expect(await talk(clientToken!, { hook_event_name: 'PostToolUse', ...input, tool_use_id: 't2', tool_response: {} })).toBe('ok\n');
    expect(recorded()).toEqual(['exec workspace:allowed.txt']);

    // A stranger on the port the endpoint file names (as after a helper's SIGKILL): its greeting is
    // not the helper's, so bash sends it nothing and the Node client handles the event.
    const strangerGot: string[] = [];
    const stranger = createServer((connection) => {
      connection.on('data', (chunk) => strangerGot.push(chunk.toString()));
      connection.write('not-the-token\n');
    });
    await new Promise<void>((resolvePromise) => stranger.listen(0, '127.0.0.1', resolvePromise));
    try {
      writeFileSync(endpoint, `${(stranger.address() as AddressInfo).port} ${serverToken} ${clientToken}\n`, { mode: 0o600 });
      const before = nodeStarts();
      await bashCall('t3', () => writeFileSync(join(fixture.project, 'stranger.txt'), 'z\n'));
      expect(nodeStarts()).toBe(before + 2);
      expect(strangerGot).toEqual([]);
      expect(recorded()).toEqual(['exec workspace:allowed.txt', 'exec workspace:stranger.txt']);
    } finally {
      stranger.close();
    }
    expect(fixture.waypoint('hooks', 'status', '--json').json().failures).toEqual([]);
  }, 240_000);
});
