import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../engine/index.js';
import { nodeScanIo, type ScanIo } from '../../workspace/index.js';
import { waypointSessionIdFor } from '../claude/claude-ids.js';
import { recentHookFailures } from '../hook-log.js';
import { handleCodexHook, runCodexHook } from './hook-handler.js';

const S = '01a234cd-f659-78e0-857d-b38af8960614';

describe('the Codex CLI hook handler (events as Codex sends them)', () => {
  let dir: string;
  let project: string;
  let storePath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-codex-hook-'));
    project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'a\n');
    writeFileSync(join(project, 'gone.txt'), 'gone\n');
    storePath = join(dir, 'home', 'waypoint.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const send = (hook_event_name: string, extra: Record<string, unknown> = {}) =>
    handleCodexHook({ session_id: S, cwd: project, hook_event_name, turn_id: 't1', transcript_path: null, ...extra }, { storePath });
  const patchCall = (id: string, patch: string) => ({ tool_name: 'apply_patch', tool_use_id: id, tool_input: { command: patch } });
  const recorded = async () => {
    const waypoint = await openWaypoint({ path: storePath });
    try {
      const sessionId = waypointSessionIdFor(S);
      const rows = await waypoint.store.listCheckpoints(sessionId);
      const turns = await waypoint.store.listTurns(sessionId);
      return { rows: rows.map((row) => `${row.source} ${row.op} ${row.path.replace('workspace:', '')}`), turns: turns.map((turn) => turn.status) };
    } finally {
      await waypoint.close();
    }
  };

  it("records each file an apply_patch names with before and after (a move as delete and create), and a person's edit during the call as nobody's", async () => {
    await send('SessionStart', { turn_id: undefined });
    await send('UserPromptSubmit', { prompt: 'patch it' });
    const patch =
      '*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+b\n*** Delete File: gone.txt\n*** Add File: new.txt\n+new\n*** End Patch\n';
    await send('PreToolUse', patchCall('p1', patch));
    // What Codex does for the patch, and a file the person writes meanwhile.
    rmSync(join(project, 'a.txt'));
    writeFileSync(join(project, 'b.txt'), 'b\n');
    rmSync(join(project, 'gone.txt'));
    writeFileSync(join(project, 'new.txt'), 'new\n');
    writeFileSync(join(project, 'person.txt'), 'mine\n');
    await send('PostToolUse', { ...patchCall('p1', patch), tool_response: 'Success.' });
    await send('Stop', { last_assistant_message: 'patched' });
    const { rows, turns } = await recorded();
    expect(rows.sort()).toEqual(['tool create b.txt', 'tool create new.txt', 'tool delete a.txt', 'tool delete gone.txt']);
    expect(turns).toEqual(['complete']);
  });

  it('scans around a shell command, and around an apply_patch whose patch cannot be read', async () => {
    await send('UserPromptSubmit', { prompt: 'run it' });
    const shell = { tool_name: 'Bash', tool_use_id: 's1', tool_input: { command: 'sed -i s/a/A/ a.txt' } };
    await send('PreToolUse', shell);
    writeFileSync(join(project, 'a.txt'), 'A\n');
    await send('PostToolUse', shell);
    await send('PreToolUse', patchCall('p2', 'not a patch'));
    writeFileSync(join(project, 'odd.txt'), 'odd\n');
    await send('PostToolUse', patchCall('p2', 'not a patch'));
    await send('Stop', { last_assistant_message: 'ran' });
    expect((await recorded()).rows.sort()).toEqual(['exec create odd.txt', 'exec modify a.txt']);
  });

  it("mirrors the rollout's items into the turn of the Codex turn they name, skips turns it never recorded, and never mirrors a final reply twice", async () => {
    const rollout = join(dir, 'rollout.jsonl');
    const item = (turn: string, payload: Record<string, unknown>) =>
      appendFileSync(
        rollout,
        `${JSON.stringify({ type: 'response_item', payload: { ...payload, internal_chat_message_metadata_passthrough: { turn_id: turn } } })}\n`,
      );
    const say = (turn: string, id: string, text: string) => item(turn, { type: 'message', id, role: 'assistant', content: [{ type: 'output_text', text }] });
    // A turn from before the hooks were installed, and Codex's context message: neither is mirrored.
    say('t0', 'r0', 'from before Waypoint');
    item('t0', { type: 'message', id: 'u0', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] });
    const at = (hook_event_name: string, extra: Record<string, unknown> = {}) => send(hook_event_name, { transcript_path: rollout, ...extra });
    await at('SessionStart', { turn_id: undefined });
    await at('UserPromptSubmit', { prompt: 'first' });
    say('t1', 'r1', 'Working.');
    item('t1', { type: 'function_call', id: 'f1', call_id: 'c1', name: 'exec_command', arguments: '{"cmd":"true"}' });
    await at('PreToolUse', { tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'true' } });
    item('t1', { type: 'function_call_output', id: 'o1', call_id: 'c1', output: 'Process exited with code 0' });
    await at('PostToolUse', { tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'true' } });
    // Stop comes before the rollout holds the final reply: it is recorded from Stop, and its copy is not mirrored when it comes.
    await at('Stop', { last_assistant_message: 'All done.' });
    say('t1', 'r2', 'All done.');
    await at('UserPromptSubmit', { prompt: 'second', turn_id: 't2' });
    say('t2', 'r3', 'Second done.');
    await at('Stop', { turn_id: 't2', last_assistant_message: 'Second done.' });
    const waypoint = await openWaypoint({ path: storePath });
    try {
      const history = await waypoint.store.history(waypointSessionIdFor(S));
      const turns = await waypoint.store.listTurns(waypointSessionIdFor(S));
      const lines = history.map((message) => {
        const part = message.parts[0]!.content!;
        const body = part.type === 'text' ? part.text : part.type === 'tool-call' || part.type === 'tool-result' ? `${part.type} ${part.toolName}` : part.type;
        return `${turns.findIndex((turn) => turn.id === message.turnId) + 1} ${message.role}: ${body}`;
      });
      expect(lines).toEqual([
        '1 user: first',
        '1 assistant: Working.',
        '1 assistant: tool-call exec_command',
        '1 tool: tool-result exec_command',
        '1 assistant: All done.',
        '2 user: second',
        '2 assistant: Second done.',
      ]);
      expect(turns.map((turn) => turn.status)).toEqual(['complete', 'complete']);
    } finally {
      await waypoint.close();
    }
  });

  it('a failure never reaches Codex: the hook resolves, the failure is logged in its own log', async () => {
    await expect(runCodexHook('not json', { storePath })).resolves.toBeUndefined();
    await expect(runCodexHook(JSON.stringify({ hook_event_name: 'Stop' }), { storePath })).resolves.toBeUndefined();
    expect(recentHookFailures(storePath, 5, 'codex').map((failure) => failure.code)).toEqual(['INVALID_HOOK_INPUT', 'INVALID_ARGUMENT']);
    expect(recentHookFailures(storePath, 5, 'claude')).toEqual([]);
  });

  it("records through a store kept open and the scans' filesystem calls it is given (as the resident helper passes them), leaving the store open", async () => {
    const waypoint = await openWaypoint({ path: storePath });
    const listed: string[] = [];
    const scanIo: ScanIo = {
      ...nodeScanIo,
      readdir: (path) => {
        listed.push(path);
        return nodeScanIo.readdir(path);
      },
    };
    try {
      const event = (hook_event_name: string, extra: Record<string, unknown> = {}) =>
        handleCodexHook({ session_id: S, cwd: project, hook_event_name, turn_id: 't1', transcript_path: null, ...extra }, { storePath, waypoint, scanIo });
      const shell = { tool_name: 'Bash', tool_use_id: 's1', tool_input: { command: 'touch made.txt' } };
      await event('UserPromptSubmit', { prompt: 'make it' });
      await event('PreToolUse', shell);
      writeFileSync(join(project, 'made.txt'), 'made\n');
      await event('PostToolUse', shell);
      await event('Stop', { last_assistant_message: 'made' });
      // Both scans went through the calls given, and the store is still open for the next event.
      expect(listed.filter((path) => path === project).length).toBeGreaterThanOrEqual(2);
      const rows = await waypoint.store.listCheckpoints(waypointSessionIdFor(S));
      expect(rows.map((row) => `${row.source} ${row.op} ${row.path}`)).toEqual(['exec create workspace:made.txt']);
    } finally {
      await waypoint.close();
    }
  });
});
