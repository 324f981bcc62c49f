import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { listSavePoints } from '../../src/rewind/index.js';
import { createRuntime, ScriptedModel } from '../../src/runtime/index.js';
import { outline, runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';
import { fileExists, waitUntil } from './waits.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** Every tool call on the path has exactly one result, and nothing is left streaming. */
async function expectValidHistory(fixture: RuntimeFixture, sessionId: string): Promise<void> {
  const path = await fixture.waypoint.store.history(sessionId);
  const calls = path.flatMap((message) => message.parts.filter((part) => part.content?.type === 'tool-call').map((part) => part.content!.toolCallId));
  const results = path.flatMap((message) => message.parts.filter((part) => part.content?.type === 'tool-result').map((part) => part.content!.toolCallId));
  expect(results.sort()).toEqual(calls.sort());
  expect(path.filter((message) => message.status === 'streaming')).toEqual([]);
}

describe('abort', () => {
  it('mid-tool: the command is killed, every call gets a result, the turn is interrupted, the next turn runs', async () => {
    fixture = await runtimeFixture([
      {
        text: 'Running it.',
        toolCalls: [
          { toolName: 'bash', input: { command: 'touch started && sleep 30' } },
          { toolName: 'write', input: { path: 'after.txt', content: 'x' } },
        ],
      },
      { text: 'Fresh start.' },
    ]);
    const { runtime, workdir, waypoint } = fixture;
    const session = await runtime.startSession({ workdir });
    const controller = new AbortController();
    const turn = runtime.runTurn(session.id, 'Run the long thing', { signal: controller.signal });
    await waitUntil(fileExists(join(workdir, 'started')), 'the command to start');
    controller.abort();
    const result = await turn;
    expect(result.status).toBe('interrupted');
    expect(result.turn.status).toBe('interrupted');
    expect(result.turn.boundary).toBeNull();
    expect(existsSync(join(workdir, 'after.txt'))).toBe(false);
    expect(await outline(waypoint, session.id)).toEqual([
      'user/input/complete: text',
      'assistant/reply/complete: text,tool-call,tool-call',
      'tool/tool_result/complete: tool-result',
      'tool/tool_result/complete: tool-result',
    ]);
    const path = await waypoint.store.history(session.id);
    expect(path[2]!.parts[0]!.content!.output as { type: string; value: string }).toMatchObject({
      type: 'error-text',
      value: expect.stringContaining('Interrupted'),
    });
    expect((path[3]!.parts[0]!.content!.output as { value: string }).value).toContain('before this tool call ran');
    await expectValidHistory(fixture, session.id);
    const points = await listSavePoints(waypoint.store, session.id, result.turn.id);
    expect(points.map((point) => `${point.point}${point.step}`)).toEqual(['A1', 'B1']);
    const end = fixture.events.find((event) => event.name === 'turn-end')!.event as { status: string };
    expect(end.status).toBe('interrupted');

    const next = await runtime.runTurn(session.id, 'Never mind.');
    expect(next.text).toBe('Fresh start.');
    expect(fixture.model.calls[1]!.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  });

  it('while the model streams: the reply is kept as interrupted', async () => {
    fixture = await runtimeFixture([{ text: 'one two three four five six seven eight nine ten eleven twelve' }], { streamFlushChars: 1 });
    const { runtime, workdir, waypoint } = fixture;
    const session = await runtime.startSession({ workdir });
    const controller = new AbortController();
    runtime.events.on('message-part', (event) => {
      if (event.delta.startsWith('three')) controller.abort();
    });
    const result = await runtime.runTurn(session.id, 'Count', { signal: controller.signal });
    expect(result.status).toBe('interrupted');
    const path = await waypoint.store.history(session.id);
    expect(path[1]!.status).toBe('interrupted');
    expect(path[1]!.parts[0]!.content!.text).toMatch(/^one two three/);
    expect(path[1]!.parts[0]!.content!.text).not.toContain('twelve');
  });
});

describe('resume after a crash', () => {
  it('repairs the turn a SIGKILLed process left running, then continues', async () => {
    fixture = await runtimeFixture([]);
    const { dir, workdir, storePath } = fixture;
    await fixture.waypoint.close();
    const marker = join(dir, 'bash.pid');
    const script = join(dir, 'crash-script.json');
    writeFileSync(
      script,
      JSON.stringify({
        steps: [
          {
            text: 'Writing, then running.',
            toolCalls: [
              { toolName: 'write', input: { path: 'a.txt', content: 'kept\n' } },
              { toolName: 'bash', input: { command: `echo $$ > ${marker} && sleep 60` } },
            ],
          },
        ],
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'fixtures', 'crash-turn-child.ts'), storePath, workdir, script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolveExit) => child.on('exit', (_code, signal) => resolveExit(signal)));
    try {
      await waitUntil(() => existsSync(marker) && readFileSync(marker, 'utf8').trim() !== '', `the child's command to start (stderr: ${stderr})`);
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    const bashPid = Number(readFileSync(marker, 'utf8').trim());
    try {
      process.kill(-bashPid, 'SIGKILL'); // the orphaned command's process group
    } catch {
      // already gone
    }
    const sessionId = stdout.split('\n')[0]!;
    expect(sessionId).toMatch(/^ses_/);
    expect(stdout).not.toContain('the turn finished');

    const waypoint = await openWaypoint({ path: storePath });
    fixture.waypoint = waypoint;
    const model = ScriptedModel.fromSteps([{ text: 'Picking up where we stopped.' }]);
    const runtime = createRuntime({ waypoint, model, maxRetries: 0 });
    fixture.runtime = runtime;
    const [crashed] = await waypoint.store.listTurns(sessionId, { status: 'running' });
    expect(crashed).toBeDefined();
    await expect(runtime.runTurn(sessionId, 'Continue')).rejects.toMatchObject({ code: 'TURN_RUNNING' });

    const { repair } = await runtime.resumeSession(sessionId);
    expect(repair.repairedCalls.map((call) => call.toolName)).toEqual(['bash']);
    expect(repair.interruptedTurns).toEqual([crashed!.id]);
    expect((await waypoint.store.getTurn(crashed!.id)).status).toBe('interrupted');
    await expectValidHistory(fixture, sessionId);
    // The write that finished before the crash is on disk and checkpointed.
    expect(readFileSync(join(workdir, 'a.txt'), 'utf8')).toBe('kept\n');
    const checkpoints = await waypoint.store.listCheckpoints(sessionId, { turnId: crashed!.id });
    expect(checkpoints.map((checkpoint) => `${checkpoint.source} ${checkpoint.op} ${checkpoint.path}`)).toEqual(['tool create workspace:a.txt']);
    expect((await runtime.resumeSession(sessionId)).repair.repairedCalls).toEqual([]); // idempotent

    const next = await runtime.runTurn(sessionId, 'Continue');
    expect(next.status).toBe('complete');
    const seen = model.calls[0]!;
    const toolMessage = seen.find((message) => message.role === 'tool')!;
    expect(JSON.stringify(toolMessage.content)).toContain('Interrupted');
  });
});
