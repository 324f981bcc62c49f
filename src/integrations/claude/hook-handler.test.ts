import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../engine/index.js';
import { previewRewind } from '../../operations/index.js';
import { waypointSessionIdFor } from './claude-ids.js';
import { handleClaudeHook, runClaudeHook } from './hook-handler.js';
import { recentHookFailures } from '../hook-log.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('the Claude Code hook handler (events as Claude sends them)', () => {
  let dir: string;
  let project: string;
  let storePath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-hook-'));
    project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), 'readme\n');
    storePath = join(dir, 'home', 'waypoint.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const send = (session: string, hook_event_name: string, extra: Record<string, unknown> = {}) =>
    handleClaudeHook({ session_id: session, cwd: project, hook_event_name, prompt_id: `${session}-p1`, ...extra }, { storePath });
  const bash = (id: string) => ({ tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'make' } });
  const writeTool = (id: string, path: string) => ({ tool_name: 'Write', tool_use_id: id, tool_input: { file_path: join(project, path), content: '' } });
  const changes = async (claudeId: string) => {
    const waypoint = await openWaypoint({ path: storePath });
    try {
      const rows = await waypoint.store.listCheckpoints(waypointSessionIdFor(claudeId));
      return rows.map((row) => `${row.source} ${row.op} ${row.path.replace('workspace:', '')}`);
    } finally {
      await waypoint.close();
    }
  };

  it("two Claude sessions in one directory: each records only its own changes, and undoing one refuses to clobber the other's edit", async () => {
    await send(A, 'UserPromptSubmit', { prompt: 'build it' });
    await send(B, 'UserPromptSubmit', { prompt: 'write notes' });
    await send(A, 'PreToolUse', bash('a1'));
    // B writes through its Write tool while A's command runs.
    await send(B, 'PreToolUse', writeTool('b1', 'notes.md'));
    writeFileSync(join(project, 'notes.md'), 'by B\n');
    await send(B, 'PostToolUse', writeTool('b1', 'notes.md'));
    writeFileSync(join(project, 'build.txt'), 'by A\n');
    await send(A, 'PostToolUse', bash('a1'));
    await send(A, 'Stop');
    await send(B, 'Stop');
    expect(await changes(A)).toEqual(['exec create build.txt']);
    expect(await changes(B)).toEqual(['tool create notes.md']);
    // B edits A's file in its next prompt; undoing A's prompt must report it, not overwrite it.
    await send(B, 'UserPromptSubmit', { prompt: 'fix the build output', prompt_id: `${B}-p2` });
    await send(B, 'PreToolUse', { ...writeTool('b2', 'build.txt'), prompt_id: `${B}-p2` });
    writeFileSync(join(project, 'build.txt'), 'by A, fixed by B\n');
    await send(B, 'PostToolUse', { ...writeTool('b2', 'build.txt'), prompt_id: `${B}-p2` });
    await send(B, 'Stop', { prompt_id: `${B}-p2` });
    const waypoint = await openWaypoint({ path: storePath });
    try {
      const sessionId = waypointSessionIdFor(A);
      const [turn] = await waypoint.store.listTurns(sessionId);
      const preview = await previewRewind({ waypoint }, { sessionId, messageId: turn!.userMessageId, includeShellChanges: true });
      expect(preview.canApply).toBe(false);
      expect(preview.files.map((file) => [file.path, file.status])).toEqual([['workspace:build.txt', 'external_modified']]);
    } finally {
      await waypoint.close();
    }
    expect(readFileSync(join(project, 'build.txt'), 'utf8')).toBe('by A, fixed by B\n');
  });

  it("parallel calls of one session, in a random order (seeded): every change is recorded once, none twice, a person's edit between prompts never", async () => {
    const seed = Number(process.env.WAYPOINT_SEED ?? 1 + Math.floor(Math.random() * 1e6));
    let state = seed;
    const random = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    await send(A, 'UserPromptSubmit', { prompt: 'many things at once' });
    const calls = [0, 1, 2, 3, 4].map((index) => ({ index, tool: index % 2 === 0 ? bash(`c${index}`) : writeTool(`c${index}`, `w${index}.txt`), step: 0 }));
    // Each call goes Pre → its change → Post; the calls interleave at random.
    while (calls.some((call) => call.step < 3)) {
      const open = calls.filter((call) => call.step < 3);
      const call = open[Math.floor(random() * open.length)]!;
      if (call.step === 0) await send(A, 'PreToolUse', call.tool);
      else if (call.step === 1) writeFileSync(join(project, call.index % 2 === 0 ? `b${call.index}.txt` : `w${call.index}.txt`), `call ${call.index}\n`);
      else await send(A, 'PostToolUse', call.tool);
      call.step++;
    }
    await send(A, 'Stop');
    writeFileSync(join(project, 'person.txt'), 'mine\n');
    await send(A, 'UserPromptSubmit', { prompt: 'and one more', prompt_id: `${A}-p2` });
    await send(A, 'PreToolUse', { ...bash('d1'), prompt_id: `${A}-p2` });
    await send(A, 'PostToolUse', { ...bash('d1'), prompt_id: `${A}-p2` });
    const recorded = await changes(A);
    expect([...recorded].sort(), `seed ${seed}`).toEqual(
      ['exec create b0.txt', 'exec create b2.txt', 'exec create b4.txt', 'tool create w1.txt', 'tool create w3.txt'].sort(),
    );
  });

  it('a prompt Claude was interrupted in (no Stop) ends when Claude exits, so its files can be undone at once', async () => {
    await send(A, 'UserPromptSubmit', { prompt: 'start something long' });
    await send(A, 'PreToolUse', writeTool('i1', 'half.txt'));
    writeFileSync(join(project, 'half.txt'), 'half done\n');
    await send(A, 'PostToolUse', writeTool('i1', 'half.txt'));
    await send(A, 'SessionEnd', { reason: 'prompt_input_exit' });
    const waypoint = await openWaypoint({ path: storePath });
    try {
      const sessionId = waypointSessionIdFor(A);
      expect(await waypoint.store.listTurns(sessionId, { status: 'running' })).toEqual([]);
      const [turn] = await waypoint.store.listTurns(sessionId);
      expect(turn!.status).toBe('interrupted');
      const preview = await previewRewind({ waypoint }, { sessionId, messageId: turn!.userMessageId });
      expect(preview.files.map((file) => [file.path, file.status])).toEqual([['workspace:half.txt', 'safe']]);
    } finally {
      await waypoint.close();
    }
  });

  it('a failure never reaches the agent: the hook resolves, the failure is logged and listed', async () => {
    await expect(runClaudeHook('not json', { storePath })).resolves.toBeUndefined();
    await expect(runClaudeHook(JSON.stringify({ hook_event_name: 'Stop' }), { storePath })).resolves.toBeUndefined();
    // A store path that is a directory: opening the store fails inside the handler.
    mkdirSync(join(dir, 'bad', 'waypoint.db'), { recursive: true });
    const badStore = join(dir, 'bad', 'waypoint.db');
    await expect(
      runClaudeHook(JSON.stringify({ session_id: A, cwd: project, hook_event_name: 'SessionStart' }), { storePath: badStore }),
    ).resolves.toBeUndefined();
    expect(recentHookFailures(storePath).map((failure) => failure.code)).toEqual(['INVALID_HOOK_INPUT', 'INVALID_ARGUMENT']);
    const [bad] = recentHookFailures(badStore);
    expect(bad).toMatchObject({ event: 'SessionStart', agentSessionId: A });
  });
});
