import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../engine/index.js';
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

  it('a failure never reaches Codex: the hook resolves, the failure is logged in its own log', async () => {
    await expect(runCodexHook('not json', { storePath })).resolves.toBeUndefined();
    await expect(runCodexHook(JSON.stringify({ hook_event_name: 'Stop' }), { storePath })).resolves.toBeUndefined();
    expect(recentHookFailures(storePath, 5, 'codex').map((failure) => failure.code)).toEqual(['INVALID_HOOK_INPUT', 'INVALID_ARGUMENT']);
    expect(recentHookFailures(storePath, 5, 'claude')).toEqual([]);
  });
});
