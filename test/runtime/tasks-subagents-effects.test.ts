import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listRewindTargets } from '../../src/history/index.js';
import { evaluateRewindTarget, rewindConversation } from '../../src/rewind/index.js';
import { defineTool, subagentLink, toModelMessages, type RuntimeEvents } from '../../src/runtime/index.js';
import { outline, runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const waitForGo = (go: string) => `while [ ! -f ${go} ]; do sleep 0.05; done; echo late result`;

function taskEnds(fixture: RuntimeFixture): Array<RuntimeEvents['task-end']> {
  return fixture.events.filter((event) => event.name === 'task-end').map((event) => event.event as RuntimeEvents['task-end']);
}

describe('background bash tasks', () => {
  async function startTask(): Promise<{ fixture: RuntimeFixture; sessionId: string; inputId: string; go: string }> {
    const created = await runtimeFixture((dir) => [
      { toolCalls: [{ toolName: 'bash', input: { command: waitForGo(join(dir, 'go')), background: true } }] },
      { text: 'Started it.' },
    ]);
    fixture = created;
    const go = join(created.dir, 'go');
    const session = await created.runtime.startSession({ workdir: created.workdir });
    const result = await created.runtime.runTurn(session.id, 'Start the watcher');
    expect(result.status).toBe('complete');
    expect(created.events.filter((event) => event.name === 'task-start')).toHaveLength(1);
    const turn = await created.waypoint.store.getTurn(result.turn.id);
    // Scanned before it started: its changes will be checkpointed when it ends, so the turn is not partially protected.
    expect(turn.metadata.partiallyProtected).toBeUndefined();
    expect(turn.metadata.backgroundTasks).toEqual([expect.objectContaining({ status: 'running', command: waitForGo(join(created.dir, 'go')) })]);
    return { fixture: created, sessionId: session.id, inputId: turn.userMessageId, go };
  }

  it('delivers the result of a task whose branch is still active as a task notification', async () => {
    const { fixture, sessionId, go } = await startTask();
    writeFileSync(go, '');
    await fixture.runtime.settleBackground();
    const [end] = taskEnds(fixture);
    expect(end).toMatchObject({ discarded: false, reason: 'finished', exitCode: 0 });
    const [head] = await fixture.waypoint.store.history(sessionId, { last: 1 });
    expect(head!.id).toBe(end!.messageId);
    expect(head!.kind).toBe('task_notification');
    expect(head!.parts[0]!.content!.text).toContain('late result');
  });

  it('discards a late result after a rewind made elsewhere moved the branch generation on', async () => {
    const { fixture, sessionId, inputId, go } = await startTask();
    // Another process (the CLI) rewinds without this runtime's task registry: the task keeps running.
    await rewindConversation(fixture.waypoint.store, { sessionId, messageId: inputId });
    writeFileSync(go, '');
    await fixture.runtime.settleBackground();
    const [end] = taskEnds(fixture);
    expect(end).toMatchObject({ discarded: true, reason: 'stale-branch', messageId: null });
    const session = await fixture.waypoint.store.getSession(sessionId);
    const tree = await fixture.waypoint.store.listTreeMessages(session.treeId);
    expect(tree.filter((message) => message.kind === 'task_notification')).toEqual([]);
  });

  it('stops the task of a turn the runtime rewinds, and discards its result', async () => {
    const { fixture, sessionId, inputId } = await startTask();
    const result = await fixture.runtime.rewind({ sessionId, messageId: inputId, scope: 'conversation' });
    expect(result.conversation?.draft).toBe('Start the watcher');
    await fixture.runtime.settleBackground();
    const [end] = taskEnds(fixture);
    expect(end).toMatchObject({ discarded: true, reason: 'stopped' });
    expect(fixture.events.some((event) => event.name === 'rewind')).toBe(true);
    expect(fixture.waypoint.tasks.running(sessionId)).toEqual([]);
  });
});

describe('subagent', () => {
  it('records its file changes against the parent turn, so rewinding the parent turn reverts them', async () => {
    fixture = await runtimeFixture([
      { text: 'Delegating.', toolCalls: [{ toolName: 'subagent', input: { prompt: 'Create sub.txt saying hello.' } }] },
      { toolCalls: [{ toolName: 'write', input: { path: 'sub.txt', content: 'hello\n' } }] },
      { text: 'Wrote sub.txt.' },
      { text: 'The sub-agent created sub.txt.' },
    ]);
    const { runtime, waypoint, workdir } = fixture;
    writeFileSync(join(workdir, 'keep.txt'), 'unchanged\n');
    const session = await runtime.startSession({ workdir });
    const result = await runtime.runTurn(session.id, 'Get a helper to make sub.txt');
    expect(result.text).toBe('The sub-agent created sub.txt.');
    expect(readFileSync(join(workdir, 'sub.txt'), 'utf8')).toBe('hello\n');
    const path = await waypoint.store.history(session.id);
    // Only the parent's messages are on the path; the subagent's answer is the tool result.
    expect(path.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(path[2]!.parts[0]!.content!.output).toEqual({ type: 'text', value: 'Wrote sub.txt.' });
    // The parent's conversation as the model sees it: the call and the answer, nothing of the transcript.
    expect(toModelMessages(path).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(fixture.model.calls[3])).not.toContain('"sub.txt"');
    // The subagent saw only its prompt, not the parent conversation.
    expect(fixture.model.calls[1]!.filter((message) => message.role === 'user')).toHaveLength(1);
    const [checkpoint] = await waypoint.store.listCheckpoints(session.id);
    expect(checkpoint).toMatchObject({ turnId: result.turn.id, anchorMessageId: path[0]!.id, toolName: 'write', path: 'workspace:sub.txt' });

    // The transcript is a child session linked to the parent's tool call.
    const link = path[2]!.metadata.subagent as { sessionId: string; status: string; messages: number; prompt: string };
    expect(link).toMatchObject({ prompt: 'Create sub.txt saying hello.', status: 'complete', messages: 4 });
    const child = await waypoint.store.getSession(link.sessionId);
    expect(child).toMatchObject({ kind: 'fork', parentSessionId: session.id, forkedFromMessageId: null, title: 'Subagent: Create sub.txt saying hello.' });
    expect(subagentLink(child)).toEqual({ parentSessionId: session.id, parentTurnId: result.turn.id, toolCallId: 'scripted_1_1', description: null });
    expect(subagentLink(session)).toBeNull();
    expect(await outline(waypoint, child.id)).toEqual([
      'user/input/complete: text',
      'assistant/reply/complete: tool-call',
      'tool/tool_result/complete: tool-result',
      'assistant/reply/complete: text',
    ]);
    const transcript = await waypoint.store.history(child.id);
    expect(transcript[0]!.parts[0]!.content!.text).toBe('Create sub.txt saying hello.');
    expect(transcript[2]!.parts[0]!.content!.output).toEqual({ type: 'text', value: 'Created sub.txt (1 lines).' });
    // What the subagent's model was sent is its stored transcript.
    expect(fixture.model.calls[2]!.filter((message) => message.role !== 'system')).toHaveLength(toModelMessages(transcript.slice(0, 3)).length);
    const [childTurn] = await waypoint.store.listTurns(child.id);
    expect(childTurn).toMatchObject({ status: 'complete', userMessageId: transcript[0]!.id });
    expect(await waypoint.store.listCheckpoints(child.id)).toEqual([]);

    // Events name the child session and its message ids.
    const subEvents = fixture.events.filter((event) => event.name === 'tool-start' && (event.event as { subagent?: unknown }).subagent);
    expect(subEvents).toHaveLength(1);
    expect(subEvents[0]!.event).toMatchObject({ sessionId: session.id, turnId: result.turn.id, subagent: { toolCallId: 'scripted_1_1', sessionId: child.id } });
    const subEnd = fixture.events.find((event) => event.name === 'tool-end' && (event.event as { subagent?: unknown }).subagent)!
      .event as RuntimeEvents['tool-end'];
    expect(subEnd.messageId).toBe(transcript[2]!.id);
    const parts = fixture.events.filter((event) => event.name === 'message-part' && (event.event as { subagent?: unknown }).subagent);
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.every((event) => (event.event as RuntimeEvents['message-part']).messageId === transcript[3]!.id)).toBe(true);
    expect(fixture.events.filter((event) => event.name === 'subagent-start' || event.name === 'subagent-end').map((event) => event.event)).toEqual([
      expect.objectContaining({ childSessionId: child.id, toolCallId: 'scripted_1_1', prompt: 'Create sub.txt saying hello.' }),
      expect.objectContaining({ childSessionId: child.id, status: 'complete', text: 'Wrote sub.txt.' }),
    ]);

    // None of the child's messages is a rewind target of the parent.
    expect((await listRewindTargets(waypoint.store, session.id)).map((target) => target.messageId)).toEqual([path[0]!.id]);
    expect(await evaluateRewindTarget(waypoint.store, session.id, transcript[0]!.id, 'both')).toMatchObject({ strategy: 'unavailable' });
    await expect(runtime.rewind({ sessionId: session.id, messageId: transcript[0]!.id, scope: 'both' })).rejects.toMatchObject({
      code: 'REWIND_TARGET_NOT_ON_PATH',
    });

    const rewound = await runtime.rewind({ sessionId: session.id, messageId: path[0]!.id, scope: 'both' });
    expect(rewound.files?.files.length).toBe(1);
    expect(existsSync(join(workdir, 'sub.txt'))).toBe(false);
    expect(readFileSync(join(workdir, 'keep.txt'), 'utf8')).toBe('unchanged\n');
    expect((await waypoint.store.getSession(session.id)).headMessageId).toBeNull();
    // The transcript outlives the rewind of the turn that ran it.
    expect(await waypoint.store.history(child.id)).toHaveLength(4);
  });
});

describe('external tools and the effects ledger', () => {
  function notifyTool(sent: string[]) {
    return defineTool({
      name: 'notify',
      description: 'Send a message to a channel',
      effect: 'external',
      inputSchema: z.object({ channel: z.string(), text: z.string() }),
      async execute(input) {
        sent.push(`${input.channel}: ${input.text}`);
        return { output: { type: 'text', value: `sent to ${input.channel}` } };
      },
    });
  }
  const call = { toolName: 'notify', input: { text: 'deploying', channel: 'ops' } };
  const sameCallOtherKeyOrder = { toolName: 'notify', input: { channel: 'ops', text: 'deploying' } };

  it('detects a repeat of a call that already succeeded, across rewinds, and does not run it again', async () => {
    const sent: string[] = [];
    fixture = await runtimeFixture(
      [
        { toolCalls: [call] },
        { text: 'Sent.' },
        { toolCalls: [sameCallOtherKeyOrder] },
        { text: 'Sent again?' },
        { toolCalls: [call] },
        { text: 'And again?' },
      ],
      { tools: [notifyTool(sent)] },
    );
    const { runtime, waypoint, workdir } = fixture;
    const session = await runtime.startSession({ workdir });
    const first = await runtime.runTurn(session.id, 'Tell ops');
    await runtime.runTurn(session.id, 'Tell ops again');
    expect(sent).toEqual(['ops: deploying']);
    const path = await waypoint.store.history(session.id);
    const repeat = path.filter((message) => message.role === 'tool')[1]!;
    expect((repeat.parts[0]!.content!.output as { value: string }).value).toContain('Not run again');
    // A rewind rewinds the decision, not the world: the ledger still knows.
    await runtime.rewind({ sessionId: session.id, messageId: (await waypoint.store.getTurn(first.turn.id)).userMessageId, scope: 'conversation' });
    await runtime.runTurn(session.id, 'Tell ops');
    expect(sent).toEqual(['ops: deploying']);
    const effects = await waypoint.store.listEffects({ sessionId: session.id });
    expect(effects.map((effect) => effect.status)).toEqual(['started', 'succeeded']);
  });

  it('runs a repeat when the approval callback says so', async () => {
    const sent: string[] = [];
    fixture = await runtimeFixture([{ toolCalls: [call] }, { text: 'Sent.' }, { toolCalls: [call] }, { text: 'Sent twice.' }], {
      tools: [notifyTool(sent)],
      approveEffect: (request) => (request.reason === 'already-succeeded' ? 'run' : 'deny'),
    });
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    await fixture.runtime.runTurn(session.id, 'Tell ops');
    await fixture.runtime.runTurn(session.id, 'Tell ops again');
    expect(sent).toEqual(['ops: deploying', 'ops: deploying']);
  });

  it('in a fork, asks: denied without a callback, dry-run when the callback says so; the fork has its own ledger', async () => {
    const sent: string[] = [];
    const decisions: string[] = [];
    let decision: 'deny' | 'dry-run' = 'deny';
    fixture = await runtimeFixture([{ text: 'Hello.' }, { toolCalls: [call] }, { text: 'Denied.' }, { toolCalls: [call] }, { text: 'Dry.' }], {
      tools: [notifyTool(sent)],
      approveEffect: (request) => {
        decisions.push(`${request.session.kind}:${request.reason}`);
        return decision;
      },
    });
    const { runtime, workdir } = fixture;
    const session = await runtime.startSession({ workdir });
    const first = await runtime.runTurn(session.id, 'Hi');
    const fork = await runtime.fork({ from: 'stable', sessionId: session.id, messageId: first.finalMessageId! });
    expect(fixture.events.some((event) => event.name === 'fork')).toBe(true);
    await runtime.runTurn(fork.session.id, 'Tell ops');
    decision = 'dry-run';
    await runtime.runTurn(fork.session.id, 'Tell ops, dry');
    expect(sent).toEqual([]);
    expect(decisions).toEqual(['fork:policy', 'fork:policy']);
    const results = (await fixture.waypoint.store.history(fork.session.id))
      .filter((message) => message.role === 'tool')
      .map((message) => message.parts[0]!.content!.output as { type: string; value: string });
    expect(results[0]).toMatchObject({ type: 'error-text', value: expect.stringContaining('needs approval') });
    expect(results[1]).toMatchObject({ type: 'text', value: expect.stringContaining('Dry run') });
    expect(await fixture.waypoint.store.listEffects({ sessionId: fork.session.id })).toEqual([]);
  });
});
