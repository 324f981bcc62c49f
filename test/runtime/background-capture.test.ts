import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { beginExec, checkpointPatch, EXEC_SCAN_ENTRY, openCaptureContext } from '../../src/checkpoint/index.js';
import { hashContent, type Checkpoint } from '../../src/model/index.js';
import { rewindConversation } from '../../src/rewind/index.js';
import type { RuntimeEvents } from '../../src/runtime/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';
import { waitUntil } from './waits.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const waitFor = (file: string) => `while [ ! -f ${file} ]; do sleep 0.02; done`;
const sha = (text: string) => hashContent(Buffer.from(text));

function taskEnds(fixture: RuntimeFixture): Array<RuntimeEvents['task-end']> {
  return fixture.events.filter((event) => event.name === 'task-end').map((event) => event.event as RuntimeEvents['task-end']);
}

function summary(checkpoints: readonly Checkpoint[]): string[] {
  return checkpoints.map((checkpoint) => `${checkpoint.op} ${checkpoint.path.replace('workspace:', '')} ${checkpoint.source}:${checkpoint.toolCallId}`);
}

describe('background bash tasks are captured when they end', () => {
  it('records what the task changed against the turn that started it, once, when tools and a foreground command ran meanwhile', async () => {
    const script = (dir: string) => {
      const control = (name: string) => join(dir, name);
      const background = [
        'echo one >> shared.txt',
        waitFor(control('step1')),
        'echo during > during.txt',
        `touch ${control('step2')}`,
        waitFor(control('go')),
        'echo after > after.txt',
        'echo tail >> written.txt',
        'rm gone.txt',
        'echo finished',
      ].join('\n');
      const foreground = `touch ${control('step1')}; ${waitFor(control('step2'))}; echo fg > fg.txt`;
      return [
        // Turn 1: start the task.
        { toolCalls: [{ toolName: 'bash', input: { command: background, background: true } }] },
        { text: 'Started the job.' },
        // Turn 2: tool writes and a foreground command while the task runs.
        {
          toolCalls: [
            { toolName: 'write', input: { path: 'written.txt', content: 'w1\n' } },
            { toolName: 'write', input: { path: 'shared.txt', content: 'replaced\n' } },
          ],
        },
        { toolCalls: [{ toolName: 'bash', input: { command: foreground } }] },
        { text: 'Done meanwhile.' },
      ];
    };
    fixture = await runtimeFixture(script);
    const { runtime, waypoint, workdir, dir } = fixture;
    writeFileSync(join(workdir, 'shared.txt'), 'base\n');
    writeFileSync(join(workdir, 'gone.txt'), 'bye\n');
    const session = await runtime.startSession({ workdir });
    const first = await runtime.runTurn(session.id, 'Start the job');
    const startCall = 'scripted_1_1';
    expect(fixture.events.find((event) => event.name === 'task-start')?.event).toMatchObject({ toolCallId: startCall, captured: true });
    // The task changes shared.txt before the next turn's write replaces it.
    await waitUntil(() => readFileSync(join(workdir, 'shared.txt'), 'utf8') === 'base\none\n', 'the task to append to shared.txt');
    const second = await runtime.runTurn(session.id, 'Work meanwhile');
    expect(second.status).toBe('complete');
    expect(readFileSync(join(workdir, 'during.txt'), 'utf8')).toBe('during\n');
    expect(taskEnds(fixture)).toEqual([]);

    writeFileSync(join(dir, 'go'), '');
    await runtime.settleBackground();
    expect(readFileSync(join(workdir, 'written.txt'), 'utf8')).toBe('w1\ntail\n');

    const all = await waypoint.store.listCheckpoints(session.id);
    const input1 = (await waypoint.store.getTurn(first.turn.id)).userMessageId;
    const byTask = all.filter((checkpoint) => checkpoint.toolCallId === startCall);
    // Only what no other capture explains: after.txt, the later append to written.txt, the delete.
    expect(summary(byTask).sort()).toEqual([`create after.txt exec:${startCall}`, `delete gone.txt exec:${startCall}`, `modify written.txt exec:${startCall}`]);
    for (const checkpoint of byTask) expect(checkpoint).toMatchObject({ turnId: first.turn.id, anchorMessageId: input1, toolName: 'bash', status: 'recorded' });
    // written.txt peels back layer by layer: the task's change starts where the write tool's ended.
    const appended = byTask.find((checkpoint) => checkpoint.path === 'workspace:written.txt')!;
    expect(appended).toMatchObject({ beforeHash: sha('w1\n'), afterHash: sha('w1\ntail\n') });
    expect(await checkpointPatch(waypoint.blobs, appended)).toContain('+tail');
    expect(byTask.find((checkpoint) => checkpoint.path === 'workspace:gone.txt')).toMatchObject({ beforeHash: sha('bye\n'), afterHash: null });
    // during.txt was written while the foreground command ran: that command's, recorded once.
    expect(all.filter((checkpoint) => checkpoint.path === 'workspace:during.txt').map((checkpoint) => checkpoint.toolCallId)).toEqual(['scripted_4_1']);
    expect(all.filter((checkpoint) => checkpoint.path === 'workspace:fg.txt')).toHaveLength(1);
    // shared.txt: the task's append is the before of the write tool's checkpoint; said so on the turn.
    expect(all.filter((checkpoint) => checkpoint.path === 'workspace:shared.txt').map((checkpoint) => checkpoint.toolName)).toEqual(['write']);
    expect(all.find((checkpoint) => checkpoint.path === 'workspace:shared.txt')!.beforeHash).toBe(sha('base\none\n'));
    const turn1 = await waypoint.store.getTurn(first.turn.id);
    expect(turn1.metadata.backgroundTasks).toEqual([expect.objectContaining({ status: 'captured', checkpoints: 3, exitCode: 0, toolCallId: startCall })]);
    expect(turn1.metadata.uncovered).toEqual([expect.objectContaining({ path: 'workspace:shared.txt', reason: 'changed_before_later_checkpoint' })]);

    // Events and the notification after the checkpoints committed.
    const [end] = taskEnds(fixture);
    expect(end).toMatchObject({ discarded: false, reason: 'finished', exitCode: 0, captureError: null });
    expect([...end!.checkpointIds].sort()).toEqual(byTask.map((checkpoint) => checkpoint.id).sort());
    const created = fixture.events.filter((event) => event.name === 'checkpoint-create' && (event.event as RuntimeEvents['checkpoint-create']).taskId);
    expect(created.map((event) => (event.event as RuntimeEvents['checkpoint-create']).turnId)).toEqual([first.turn.id, first.turn.id, first.turn.id]);
    const [head] = await waypoint.store.history(session.id, { last: 1 });
    expect(head).toMatchObject({ id: end!.messageId, kind: 'task_notification' });
    expect(head!.parts[0]!.content!.text).toContain('after.txt');

    // Rewinding from the first turn reverts the task's changes with everything else.
    const rewound = await runtime.rewind({ sessionId: session.id, messageId: input1, scope: 'both', cascade: true });
    expect(rewound.files?.files.length).toBeGreaterThan(0);
    for (const name of ['after.txt', 'during.txt', 'fg.txt', 'written.txt']) expect(existsSync(join(workdir, name)), name).toBe(false);
    expect(readFileSync(join(workdir, 'gone.txt'), 'utf8')).toBe('bye\n');
    expect(readFileSync(join(workdir, 'shared.txt'), 'utf8')).toBe('base\none\n');
  });

  it('records nothing for a task a rewind stopped, and leaves its changes visible to the next scan', async () => {
    fixture = await runtimeFixture((dir) => [
      { toolCalls: [{ toolName: 'bash', input: { command: 'echo ready > ready.txt' } }] },
      {
        toolCalls: [
          { toolName: 'bash', input: { command: `echo partial > partial.txt; ${waitFor(join(dir, 'go'))}; echo never > never.txt`, background: true } },
        ],
      },
      { text: 'Started.' },
    ]);
    const { runtime, waypoint, workdir } = fixture;
    const session = await runtime.startSession({ workdir });
    const result = await runtime.runTurn(session.id, 'Start it');
    await waitUntil(() => existsSync(join(workdir, 'partial.txt')), 'the task to write partial.txt');
    const scans = (await waypoint.store.listEntries(session.id, { type: EXEC_SCAN_ENTRY })).length;
    const before = await waypoint.store.listCheckpoints(session.id);
    const input = (await waypoint.store.getTurn(result.turn.id)).userMessageId;

    await runtime.rewind({ sessionId: session.id, messageId: input, scope: 'conversation' });
    await runtime.settleBackground();
    expect(taskEnds(fixture)).toEqual([expect.objectContaining({ discarded: true, reason: 'stopped', checkpointIds: [], messageId: null })]);
    // Nothing written into the cut branch, and the session's scan state did not absorb the change.
    expect(await waypoint.store.listCheckpoints(session.id)).toEqual(before);
    expect((await waypoint.store.listEntries(session.id, { type: EXEC_SCAN_ENTRY })).length).toBe(scans);
    expect(readFileSync(join(workdir, 'partial.txt'), 'utf8')).toBe('partial\n');
    expect(existsSync(join(workdir, 'never.txt'))).toBe(false);
    const turn = await waypoint.store.getTurn(result.turn.id);
    expect(turn.metadata).toMatchObject({ partiallyProtected: true, backgroundTasks: [expect.objectContaining({ status: 'discarded' })] });
    // The next scan of the session sees the file as a change nobody recorded.
    const context = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: null });
    const next = await beginExec(context);
    expect(next.external?.created.map((file) => file.path)).toEqual(['workspace:partial.txt']);
  });

  it('records nothing for a task whose session was rewound elsewhere (stale branch)', async () => {
    fixture = await runtimeFixture((dir) => [
      { toolCalls: [{ toolName: 'bash', input: { command: `${waitFor(join(dir, 'go'))}; echo late > late.txt`, background: true } }] },
      { text: 'Started.' },
    ]);
    const { runtime, waypoint, workdir, dir } = fixture;
    const session = await runtime.startSession({ workdir });
    const result = await runtime.runTurn(session.id, 'Start it');
    // Another process rewinds without this runtime's task registry: the task keeps running.
    await rewindConversation(waypoint.store, { sessionId: session.id, messageId: (await waypoint.store.getTurn(result.turn.id)).userMessageId });
    writeFileSync(join(dir, 'go'), '');
    await runtime.settleBackground();
    expect(readFileSync(join(workdir, 'late.txt'), 'utf8')).toBe('late\n');
    expect(taskEnds(fixture)).toEqual([expect.objectContaining({ discarded: true, reason: 'stale-branch', checkpointIds: [] })]);
    expect(await waypoint.store.listCheckpoints(session.id)).toEqual([]);
  });
});
