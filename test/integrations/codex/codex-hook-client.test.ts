import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookCommand } from '../../../src/integrations/claude/hook-command.js';
import { tokensMatch } from '../../../src/integrations/claude/helper-protocol.js';
import { codexHookCommand } from '../../../src/integrations/codex/codex-hooks-file.js';
import { exited, helperProject } from '../claude/helper-fixture.js';

const CODEX_ID = '019a0000-0000-7000-8000-00000000c0de';
const CLAUDE_ID = '66666666-6666-4666-8666-666666666666';
const HAS_BASH = existsSync('/bin/bash');

/**
 * Codex CLI's installed hook command (`/bin/bash bin/claude-hook.bash … hooks run codex …`), run
 * through `/bin/bash -c` as Codex runs it, with Claude Code's command beside it on the same store:
 * one resident helper records both agents' events. Its Node is a wrapper that counts its starts, so
 * the test sees when an event went to the helper from bash alone and when to the Node client.
 */
describe.skipIf(!HAS_BASH || process.platform !== 'linux')("Codex's hook command through the store's resident helper (real processes)", () => {
  let helper: ReturnType<typeof helperProject>;
  let fixture: ReturnType<typeof helperProject>['fixture'];
  let codex: string;
  let claude: string;
  let endpoint: string;
  let lock: string;
  let nodeStarts: () => number;
  beforeEach(() => {
    helper = helperProject({ 'README.md': 'readme\n', 'src/kept.txt': 'kept\n' });
    ({ fixture, endpoint, lock, nodeStarts } = helper);
    codex = codexHookCommand({ storePath: fixture.storePath, node: helper.node });
    claude = hookCommand({ storePath: fixture.storePath, node: helper.node });
  });
  afterEach(() => helper.cleanup());

  const run = async (command: string, event: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
    const child = spawn('/bin/bash', ['-c', command], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, WAYPOINT_HOOK_HELPER_IDLE_MS: '60000', ...env },
    });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin!.end(JSON.stringify(event));
    return { code: await exited(child), stdout };
  };
  const codexEvent = async (event: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
    const result = await run(codex, { session_id: CODEX_ID, cwd: fixture.project, transcript_path: null, turn_id: 't1', ...event }, env);
    // Codex reads a hook's stdout as its answer: nothing is written there.
    expect(result).toEqual({ code: 0, stdout: '' });
  };
  const shellCall = async (id: string, change: () => void, env: NodeJS.ProcessEnv = {}) => {
    const input = { tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'make' } };
    await codexEvent({ hook_event_name: 'PreToolUse', ...input }, env);
    change();
    await codexEvent({ hook_event_name: 'PostToolUse', ...input, tool_response: '' }, env);
  };
  const recorded = (id: string) =>
    fixture
      .waypoint('checkpoints', id, '--json')
      .json()
      .checkpoints.map((row: { source: string; path: string }) => `${row.source} ${row.path}`)
      .sort();
  const status = () => fixture.waypoint('hooks', 'status', '--json').json();
  const helperUp = async () => {
    for (let wait = 0; wait < 300 && !(existsSync(endpoint) && existsSync(join(lock, 'pid'))); wait++) await sleep(100);
    for (let attempt = 0; attempt < 100; attempt++) {
      if (status().helper.state === 'serving') return Number(readFileSync(join(lock, 'pid'), 'utf8'));
      await sleep(200);
    }
    throw new Error('the helper never answered');
  };

  it("with the helper up, Codex's events go from bash alone, beside Claude's through the same helper; `hooks status` shows it", async () => {
    expect(codex.startsWith('/bin/bash ')).toBe(true);
    expect(codex).toContain(' hooks run codex --store ');
    await codexEvent({ hook_event_name: 'SessionStart', turn_id: undefined });
    expect(nodeStarts()).toBe(1);
    const pid = await helperUp();
    const before = nodeStarts();
    await codexEvent({ hook_event_name: 'UserPromptSubmit', prompt: 'Tidy up' });
    await shellCall('c1', () => writeFileSync(join(fixture.project, 'src/one.txt'), 'one\n'));
    // A Claude session on the same store, between the Codex calls: its events go to the same helper.
    expect((await run(claude, { session_id: CLAUDE_ID, cwd: fixture.project, prompt_id: 'p1', hook_event_name: 'UserPromptSubmit', prompt: 'go' })).code).toBe(
      0,
    );
    const claudeCall = { session_id: CLAUDE_ID, cwd: fixture.project, prompt_id: 'p1', tool_name: 'Bash', tool_use_id: 'b1', tool_input: { command: 'make' } };
    expect((await run(claude, { ...claudeCall, hook_event_name: 'PreToolUse' })).code).toBe(0);
    writeFileSync(join(fixture.project, 'claude.txt'), 'claude\n');
    expect((await run(claude, { ...claudeCall, hook_event_name: 'PostToolUse', tool_response: {} })).code).toBe(0);
    await shellCall('c2', () => writeFileSync(join(fixture.project, 'src/kept.txt'), 'changed\n'));
    await codexEvent({ hook_event_name: 'Stop', last_assistant_message: 'Done.' });
    expect(nodeStarts()).toBe(before);
    expect(recorded(CODEX_ID)).toEqual(['exec workspace:src/kept.txt', 'exec workspace:src/one.txt']);
    expect(recorded(CLAUDE_ID)).toEqual(['exec workspace:claude.txt']);
    const shown = status();
    expect(shown.helper).toMatchObject({ state: 'serving', pid, events: { codex: 6, claude: 3 } });
    expect(shown.agents.map((agent: { agent: string; helper: { events: number } }) => [agent.agent, agent.helper.events])).toEqual([
      ['claude', 3],
      ['codex', 6],
    ]);
    expect(shown.agents.every((agent: { failures: unknown[] }) => agent.failures.length === 0)).toBe(true);
    expect(fixture.waypoint('hooks', 'status').stdout).toContain(`Resident helper: pid ${pid} on 127.0.0.1:`);
    // WAYPOINT_HOOK_HELPER=off: the Node client records the call in its own process.
    await shellCall('c3', () => writeFileSync(join(fixture.project, 'three.txt'), '3\n'), { WAYPOINT_HOOK_HELPER: 'off' });
    expect(nodeStarts()).toBe(before + 2);
    expect(recorded(CODEX_ID)).toEqual(['exec workspace:src/kept.txt', 'exec workspace:src/one.txt', 'exec workspace:three.txt']);
    expect(status().helper.events.codex).toBe(6);
  }, 240_000);

  it('a bad Codex event through the helper exits 0 and is logged for Codex, not for Claude', async () => {
    await codexEvent({ hook_event_name: 'SessionStart' });
    await helperUp();
    const before = nodeStarts();
    const result = await run(codex, { hook_event_name: 'PreToolUse', cwd: fixture.project });
    expect(result).toEqual({ code: 0, stdout: '' });
    expect(nodeStarts()).toBe(before);
    const [claudeAgent, codexAgent] = status().agents;
    expect(codexAgent.failures.map((failure: { code: string; event: string }) => [failure.code, failure.event])).toEqual([['INVALID_ARGUMENT', 'PreToolUse']]);
    expect(claudeAgent.failures).toEqual([]);
  }, 240_000);

  it('a helper that compares the whole token line (one from before Codex went through it) refuses the Codex event, which the Node client records', async () => {
    await codexEvent({ hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    await helperUp();
    const [, serverToken, clientToken] = readFileSync(endpoint, 'utf8').trim().split(' ');
    // The older helper's side of the conversation: greet, read the token line, compare it whole.
    const lines: string[] = [];
    const older = createServer((connection) => {
      let received = '';
      let answered = false;
      connection.write(`${serverToken}\n`);
      connection.on('data', (chunk) => {
        // The event may follow the token line in the same chunk or in later ones: answer once.
        if (answered) return;
        received += chunk.toString();
        const newline = received.indexOf('\n');
        if (newline < 0) return;
        answered = true;
        lines.push(received.slice(0, newline));
        connection.end(tokensMatch(received.slice(0, newline), clientToken!) ? 'ok\n' : 'denied\n');
      });
    });
    await new Promise<void>((resolvePromise) => older.listen(0, '127.0.0.1', resolvePromise));
    try {
      writeFileSync(endpoint, `${(older.address() as AddressInfo).port} ${serverToken} ${clientToken}\n`, { mode: 0o600 });
      const before = nodeStarts();
      await shellCall('o1', () => writeFileSync(join(fixture.project, 'older.txt'), 'o\n'));
      expect(lines).toEqual([`${clientToken} codex`, `${clientToken} codex`, `${clientToken} codex`, `${clientToken} codex`]);
      expect(nodeStarts()).toBe(before + 2);
      expect(recorded(CODEX_ID)).toEqual(['exec workspace:older.txt']);
    } finally {
      older.close();
    }
  }, 240_000);
});
