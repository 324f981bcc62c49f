import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { createRuntime, ScriptedModel } from '../../src/runtime/index.js';
import { runCli, snapshotTree } from './cli-harness.js';

/**
 * A store written by the real runtime with a scripted model: session "Parser work" whose one turn
 * ran a subagent ("find the callers", which wrote callers.txt), then a plain newer session. The
 * CLI reads them as a user would.
 */
async function createSubagentStore() {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-cli-subagent-'));
  const home = join(dir, 'home');
  const workdir = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(workdir);
  const storePath = join(home, 'waypoint.db');
  const waypoint = await openWaypoint({ path: storePath });
  const model = ScriptedModel.fromSteps([
    {
      text: 'Delegating.',
      toolCalls: [{ toolName: 'subagent', input: { prompt: 'List the callers of parse() in callers.txt.', description: 'find the callers' } }],
    },
    { toolCalls: [{ toolName: 'write', input: { path: 'callers.txt', content: 'main.js\n' } }] },
    { text: 'One caller: main.js.' },
    { text: 'The helper found one caller.' },
    { text: 'Hello.' },
  ]);
  const runtime = createRuntime({ waypoint, model, maxRetries: 0, idleCompression: false });
  try {
    const parent = await runtime.startSession({ workdir, title: 'Parser work' });
    const turn = await runtime.runTurn(parent.id, 'Who calls parse()?');
    expect(turn.status).toBe('complete');
    const [child] = await waypoint.store.listSessions({ parentSessionId: parent.id });
    const toolMessage = (await waypoint.store.history(parent.id)).find((message) => message.role === 'tool')!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = await runtime.startSession({ workdir, title: 'Later work' });
    await runtime.runTurn(later.id, 'Say hello.');
    return {
      dir,
      home,
      parentId: parent.id,
      turnId: turn.turn.id,
      childId: child!.id,
      toolMessageId: toolMessage.id,
      laterId: later.id,
      cli: (...args: string[]) => runCli(args, { home }),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } finally {
    await runtime.close();
    await waypoint.close();
  }
}

describe('subagent sessions in the read commands (built CLI)', () => {
  let fixture: Awaited<ReturnType<typeof createSubagentStore>>;
  let before: Record<string, string>;
  beforeAll(async () => {
    fixture = await createSubagentStore();
    before = snapshotTree(fixture.dir);
  });
  afterAll(() => fixture.cleanup());

  it('sessions: KIND says subagent; --json carries the link to the parent turn and tool call', () => {
    const run = fixture.cli('sessions');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${fixture.parentId}  main      "Parser work"`);
    expect(run.stdout).toContain(`${fixture.childId}  subagent  "Subagent: find the callers"`);
    const { sessions } = fixture.cli('sessions', '--json').json();
    expect(sessions.map((row: { id: string }) => row.id)).toEqual([fixture.parentId, fixture.childId, fixture.laterId]);
    expect(sessions[1]).toMatchObject({
      kind: 'fork',
      parentSessionId: fixture.parentId,
      subagent: { parentSessionId: fixture.parentId, parentTurnId: fixture.turnId, toolCallId: 'scripted_1_1', description: 'find the callers' },
      turns: 1,
    });
    expect(sessions[0].subagent).toBeNull();
  });

  it('log: the subagent under its parent, as a subagent of that turn, not as a fork', () => {
    const run = fixture.cli('log', fixture.childId);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      // The subagent's write is a checkpoint of the parent turn.
      `main  "Parser work"  ${fixture.parentId}  1 turn, 1 change`,
      `└─ subagent: "find the callers"  ${fixture.childId}  of turn 1 (${fixture.turnId}, tool call scripted_1_1)  complete  ← here`,
    ]);
    expect(run.stdout).not.toContain('fork');
    const json = fixture.cli('log', fixture.parentId, '--json').json();
    expect(json.family.subagent).toBeNull();
    expect(json.family.children).toEqual([
      expect.objectContaining({
        session: expect.objectContaining({ id: fixture.childId }),
        subagent: {
          parentSessionId: fixture.parentId,
          parentTurnId: fixture.turnId,
          toolCallId: 'scripted_1_1',
          description: 'find the callers',
          turnNumber: 1,
        },
        lastTurnStatus: 'complete',
      }),
    ]);
  });

  it("show <subagent session>: its transcript, and whose tool call it belongs to; the parent's tool result points at it", () => {
    const run = fixture.cli('show', fixture.childId);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`${fixture.childId}  subagent  "Subagent: find the callers"`);
    expect(run.stdout).toContain(`subagent of ${fixture.parentId} "Parser work", turn 1 (${fixture.turnId}), tool call scripted_1_1: "find the callers"`);
    expect(run.stdout).not.toContain('forked at');
    expect(run.stdout).toContain('List the callers of parse() in callers.txt.');
    expect(run.stdout).toContain('One caller: main.js.');
    const json = fixture.cli('show', fixture.childId, '--json').json();
    expect(json).toMatchObject({
      type: 'session',
      subagent: { parentSessionId: fixture.parentId, parentTurnId: fixture.turnId, toolCallId: 'scripted_1_1', parentTitle: 'Parser work', turnNumber: 1 },
      turns: 1,
      pathLength: 4,
    });
    expect(json.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    const parent = fixture.cli('show', fixture.parentId);
    expect(parent.stdout).toContain(`(subagent transcript: waypoint show ${fixture.childId})`);
    expect(parent.stdout).not.toContain('subagent of');
    const tool = fixture.cli('show', fixture.toolMessageId, '--json').json();
    expect(tool.message.subagentSessionId).toBe(fixture.childId);
    // Reading changed nothing.
    expect(snapshotTree(fixture.dir)).toEqual(before);
  });

  it('gc --keep-sessions: a subagent session is not counted, and goes with its parent', () => {
    // Two sessions of their own (the subagent transcript is not one): nothing to trim.
    const keepTwo = fixture.cli('gc', '--keep-sessions', '2', '--json').json();
    expect(keepTwo.removedSessions).toEqual([]);
    expect(fixture.cli('sessions', '--json').json().sessions).toHaveLength(3);

    const dryText = fixture.cli('gc', '--keep-sessions', '1', '--dry-run').stdout;
    expect(dryText).toContain(`with its subagent transcript ${fixture.childId}`);
    const keepOne = fixture.cli('gc', '--keep-sessions', '1', '--yes', '--json').json();
    expect(keepOne.orphanSubagentSessions).toEqual([]);
    expect(keepOne.removedSessions).toEqual([
      expect.objectContaining({
        id: fixture.parentId,
        subagentSessions: [expect.objectContaining({ id: fixture.childId, title: 'Subagent: find the callers' })],
      }),
    ]);
    expect(
      fixture
        .cli('sessions', '--json')
        .json()
        .sessions.map((row: { id: string }) => row.id),
    ).toEqual([fixture.laterId]);
    expect(fixture.cli('show', fixture.childId).code).not.toBe(0);
  });
});
