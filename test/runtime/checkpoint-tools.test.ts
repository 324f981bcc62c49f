import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs, tool, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import type { Session } from '../../src/model/index.js';
import { checkpointedFs, checkpointTools, startTurn, type ToolCaptureReport } from '../../src/runtime/index.js';

interface Setup {
  dir: string;
  project: string;
  waypoint: Waypoint;
  session: Session;
}

let setup: Setup | null = null;
afterEach(async () => {
  if (!setup) return;
  await setup.waypoint.close();
  rmSync(setup.dir, { recursive: true, force: true });
  setup = null;
});

async function open(files: Record<string, string> = {}): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-ai-tools-'));
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(project, path, '..'), { recursive: true });
    writeFileSync(join(project, path), content);
  }
  const waypoint = await openWaypoint({ path: join(dir, 'store', 'w.db') });
  const session = await waypoint.history.createSession({ workdir: project });
  setup = { dir, project, waypoint, session };
  return setup;
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A mock model whose first step calls `calls` (all in one step), then answers. */
function mockModel(calls: Array<{ id: string; tool: string; input?: unknown }>): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.tool, input: JSON.stringify(call.input ?? {}) })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
}

async function runLoop(s: Setup, tools: ToolSet, calls: Array<{ id: string; tool: string; input?: unknown }>, reports: ToolCaptureReport[] = []) {
  const turn = await startTurn({ waypoint: s.waypoint, sessionId: s.session.id, input: 'Do the work' });
  const result = await generateText({
    model: mockModel(calls),
    prompt: 'Do the work',
    tools: checkpointTools(tools, { waypoint: s.waypoint, sessionId: s.session.id, onCapture: (report) => reports.push(report) }),
    stopWhen: stepCountIs(3),
  });
  const ended = await turn.end({ messages: result.response.messages });
  return { turn, result, ended };
}

describe('checkpointTools: any AI SDK tool, checkpointed in the running turn', () => {
  it('a tool writing with node:fs gets a checkpoint of its call, and undoing the turn restores the file', async () => {
    const s = await open({ 'notes.md': 'original\n' });
    const tools = {
      saveNotes: tool({
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }) => {
          writeFileSync(join(s.project, 'notes.md'), text);
          writeFileSync(join(s.project, 'extra.txt'), 'new file\n');
          return 'saved';
        },
      }),
    };
    const { turn, result, ended } = await runLoop(s, tools, [{ id: 'call_1', tool: 'saveNotes', input: { text: 'by the agent\n' } }]);
    expect(result.text).toBe('Done.');
    expect(result.steps[0]!.toolResults).toEqual([expect.objectContaining({ toolCallId: 'call_1', output: 'saved' })]);
    const checkpoints = await s.waypoint.store.listCheckpoints(s.session.id, { turnId: turn.turnId });
    expect(checkpoints.map((checkpoint) => [checkpoint.op, checkpoint.path, checkpoint.toolName, checkpoint.toolCallId, checkpoint.anchorMessageId])).toEqual([
      ['modify', 'workspace:notes.md', 'saveNotes', 'call_1', turn.inputMessageId],
      ['create', 'workspace:extra.txt', 'saveNotes', 'call_1', turn.inputMessageId],
    ]);
    expect(ended.summary.files.map((file) => file.displayPath).sort()).toEqual(['extra.txt', 'notes.md']);
    expect(ended.partiallyProtected).toBe(false);
    // The loop's messages are in the session: input, the tool call, its result, the answer.
    expect((await s.waypoint.store.history(s.session.id)).map((message) => `${message.role}/${message.kind}`)).toEqual([
      'user/input',
      'assistant/reply',
      'tool/tool_result',
      'assistant/reply',
    ]);

    const undo = await s.waypoint.files.rollbackTurn(turn.turnId);
    expect(undo.ok).toBe(true);
    expect(readFileSync(join(s.project, 'notes.md'), 'utf8')).toBe('original\n');
    expect(existsSync(join(s.project, 'extra.txt'))).toBe(false);
  });

  it('a change to an ignored path is reported uncovered, to the caller and on the turn', async () => {
    const s = await open({ '.gitignore': 'cache/\n', 'kept.txt': 'a\n' });
    const tools = {
      warm: tool({
        inputSchema: z.object({}),
        execute: async () => {
          mkdirSync(join(s.project, 'cache'), { recursive: true });
          writeFileSync(join(s.project, 'cache', 'data.bin'), 'cached');
          writeFileSync(join(s.project, 'kept.txt'), 'b\n');
          return 'warmed';
        },
      }),
    };
    const reports: ToolCaptureReport[] = [];
    const { ended } = await runLoop(s, tools, [{ id: 'call_warm', tool: 'warm' }], reports);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.partiallyProtected).toBe(true);
    expect(reports[0]!.uncovered).toEqual([expect.objectContaining({ path: 'workspace:cache', reason: 'ignored' })]);
    expect(reports[0]!.checkpoints.map((checkpoint) => checkpoint.path)).toEqual(['workspace:kept.txt']);
    expect(ended.partiallyProtected).toBe(true);
    expect(ended.uncovered).toEqual([expect.objectContaining({ path: 'workspace:cache', reason: 'ignored' })]);
  });

  it('a tool that throws half way still has its changes recorded; the loop sees its error', async () => {
    const s = await open({ 'a.txt': 'before\n' });
    const tools = {
      flaky: tool({
        inputSchema: z.object({}),
        execute: async (): Promise<string> => {
          writeFileSync(join(s.project, 'a.txt'), 'half written\n');
          throw new Error('disk on fire');
        },
      }),
    };
    const reports: ToolCaptureReport[] = [];
    const { turn, result } = await runLoop(s, tools, [{ id: 'call_flaky', tool: 'flaky' }], reports);
    const errors = result.steps[0]!.content.filter((part) => part.type === 'tool-error');
    expect(errors).toEqual([expect.objectContaining({ toolCallId: 'call_flaky', error: expect.objectContaining({ message: 'disk on fire' }) })]);
    expect((reports[0]!.error as Error).message).toBe('disk on fire');
    expect(
      (await s.waypoint.store.listCheckpoints(s.session.id, { turnId: turn.turnId })).map((checkpoint) => [checkpoint.path, checkpoint.toolCallId]),
    ).toEqual([['workspace:a.txt', 'call_flaky']]);
    expect((await s.waypoint.files.rollbackTurn(turn.turnId)).ok).toBe(true);
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('before\n');
  });

  it('writes through checkpointedFs() are recorded as they happen; a node:fs write after them is recorded once, on top', async () => {
    const s = await open({ 'doc.md': 'v0\n' });
    const tools = {
      mixed: tool({
        inputSchema: z.object({}),
        execute: async () => {
          await checkpointedFs().writeFile('doc.md', 'v1\n');
          writeFileSync(join(s.project, 'doc.md'), 'v2\n');
          return 'ok';
        },
      }),
    };
    const { turn } = await runLoop(s, tools, [{ id: 'call_mixed', tool: 'mixed' }]);
    const checkpoints = await s.waypoint.store.listCheckpoints(s.session.id, { turnId: turn.turnId });
    expect(checkpoints.map((checkpoint) => [checkpoint.source, checkpoint.op, checkpoint.toolCallId])).toEqual([
      ['fs', 'modify', 'call_mixed'],
      ['exec', 'modify', 'call_mixed'],
    ]);
    // The exec checkpoint starts where the fs one ended: undo peels v2 → v1 → v0.
    expect(checkpoints[1]!.beforeHash).toBe(checkpoints[0]!.afterHash);
    expect((await s.waypoint.files.rollbackTurn(turn.turnId)).ok).toBe(true);
    expect(readFileSync(join(s.project, 'doc.md'), 'utf8')).toBe('v0\n');
  });

  it('calls of one step run by the SDK in parallel each get exactly their own changes (randomized interleavings)', async () => {
    const seed = Number(process.env.WAYPOINT_TEST_SEED ?? 20261201);
    const random = mulberry32(seed);
    const s = await open();
    const pause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 15)));
    const tools: ToolSet = {};
    const calls: Array<{ id: string; tool: string }> = [];
    for (let index = 0; index < 4; index++) {
      const name = `writer${index}`;
      tools[name] = tool({
        inputSchema: z.object({}),
        execute: async () => {
          for (let round = 0; round < 3; round++) {
            await pause();
            writeFileSync(join(s.project, `${name}-${round}.txt`), `${name} ${round}\n`);
          }
          return 'written';
        },
      });
      calls.push({ id: `call_${name}`, tool: name });
    }
    const { turn } = await runLoop(s, tools, calls);
    const checkpoints = await s.waypoint.store.listCheckpoints(s.session.id, { turnId: turn.turnId });
    const misattributed = checkpoints.filter((checkpoint) => checkpoint.toolCallId !== `call_${/workspace:(writer\d)-/.exec(checkpoint.path)![1]}`);
    expect(
      misattributed.map((checkpoint) => `${checkpoint.path} by ${checkpoint.toolCallId}`),
      `seed ${seed}`,
    ).toEqual([]);
    expect(checkpoints, `seed ${seed}`).toHaveLength(12);
  });

  it('refuses a call while no turn runs (NO_RUNNING_TURN), and the tool does not run', async () => {
    const s = await open({ 'a.txt': 'untouched\n' });
    let ran = false;
    const tools = checkpointTools(
      {
        touch: tool({
          inputSchema: z.object({}),
          execute: async () => {
            ran = true;
            writeFileSync(join(s.project, 'a.txt'), 'changed\n');
            return 'ok';
          },
        }),
      },
      { waypoint: s.waypoint, sessionId: s.session.id },
    );
    await expect(tools.touch.execute!({}, { toolCallId: 'call_1', messages: [] })).rejects.toMatchObject({ code: 'NO_RUNNING_TURN' });
    expect(ran).toBe(false);
    expect(readFileSync(join(s.project, 'a.txt'), 'utf8')).toBe('untouched\n');
    expect(await s.waypoint.store.listCheckpoints(s.session.id)).toEqual([]);
  });

  it('a tool streaming preliminary results is captured to its end; its results reach the loop', async () => {
    const s = await open();
    const tools = {
      steps: tool({
        inputSchema: z.object({}),
        async *execute() {
          yield 'starting';
          writeFileSync(join(s.project, 'step.txt'), 'one\n');
          yield 'half';
          writeFileSync(join(s.project, 'step.txt'), 'two\n');
          yield 'done';
        },
      }),
    };
    const { turn, result } = await runLoop(s, tools, [{ id: 'call_steps', tool: 'steps' }]);
    expect(result.steps[0]!.toolResults).toEqual([expect.objectContaining({ toolCallId: 'call_steps', output: 'done' })]);
    expect((await s.waypoint.store.listCheckpoints(s.session.id, { turnId: turn.turnId })).map((checkpoint) => [checkpoint.op, checkpoint.path])).toEqual([
      ['create', 'workspace:step.txt'],
    ]);
  });

  it('startTurn refuses a second running turn (TURN_RUNNING) and an empty input, appending nothing', async () => {
    const s = await open();
    await startTurn({ waypoint: s.waypoint, sessionId: s.session.id, input: 'First' });
    const before = await s.waypoint.store.history(s.session.id);
    await expect(startTurn({ waypoint: s.waypoint, sessionId: s.session.id, input: 'Second' })).rejects.toMatchObject({ code: 'TURN_RUNNING' });
    await expect(startTurn({ waypoint: s.waypoint, sessionId: s.session.id, input: '  ' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await s.waypoint.store.history(s.session.id)).toEqual(before);
    expect(await s.waypoint.store.listTurns(s.session.id)).toHaveLength(1);
  });

  it('checkpointedFs() outside a wrapped call is refused with NOT_IN_TOOL_CALL', () => {
    expect(() => checkpointedFs()).toThrow(expect.objectContaining({ code: 'NOT_IN_TOOL_CALL' }));
  });
});

/** A small seeded PRNG, so a failing interleaving can be replayed with WAYPOINT_TEST_SEED. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
