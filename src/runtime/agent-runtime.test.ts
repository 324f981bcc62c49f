import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSavePoints } from '../rewind/index.js';
import { outline, runtimeFixture, type RuntimeFixture } from '../../test/runtime/runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe('a turn with write, edit and bash', () => {
  it('records checkpoints, messages, save points, and pins the boundary before turn-end', async () => {
    fixture = await runtimeFixture([
      {
        reasoning: 'Create the file, then change it.',
        text: 'I will create notes.txt and edit it.',
        toolCalls: [
          { toolName: 'write', input: { path: 'notes.txt', content: 'alpha\nbeta\n' } },
          { toolName: 'edit', input: { path: 'notes.txt', oldString: 'beta', newString: 'gamma' } },
        ],
      },
      { toolCalls: [{ toolName: 'bash', input: { command: 'printf "from shell\\n" > shell.txt && echo done' } }] },
      { text: 'Created notes.txt, edited it, and wrote shell.txt from bash.' },
    ]);
    const { runtime, waypoint, workdir, events } = fixture;
    const session = await runtime.startSession({ workdir, title: 'Turn test' });
    let boundaryAtTurnEnd: string[] | null = null;
    let statusAtTurnEnd: string | null = null;
    runtime.events.on('turn-end', (event) => {
      // Read the store synchronously at emit time through a promise we await below.
      void waypoint.store.getTurn(event.turnId).then((turn) => {
        boundaryAtTurnEnd = turn.boundary;
        statusAtTurnEnd = turn.status;
      });
    });
    const result = await runtime.runTurn(session.id, 'Make notes.');
    expect(result.status).toBe('complete');
    expect(result.text).toBe('Created notes.txt, edited it, and wrote shell.txt from bash.');
    expect(result.steps).toBe(3);
    expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    expect(readFileSync(join(workdir, 'shell.txt'), 'utf8')).toBe('from shell\n');

    // Messages: input, assistant (reasoning, text, two calls), two tool results, assistant (bash call), result, final reply.
    expect(await outline(waypoint, session.id)).toEqual([
      'user/input/complete: text',
      'assistant/reply/complete: reasoning,text,tool-call,tool-call',
      'tool/tool_result/complete: tool-result',
      'tool/tool_result/complete: tool-result',
      'assistant/reply/complete: tool-call',
      'tool/tool_result/complete: tool-result',
      'assistant/reply/complete: text',
    ]);
    const path = await waypoint.store.history(session.id);
    const bashResult = path[5]!.parts[0]!.content!;
    expect(bashResult).toMatchObject({ type: 'tool-result', toolName: 'bash', output: { type: 'text' } });
    expect((bashResult.output as { value: string }).value).toContain('done\n[exit code 0]');

    // Checkpoints: tool write (create), tool edit (modify), exec create — all of this turn, anchored at the input.
    const checkpoints = await waypoint.store.listCheckpoints(session.id, { turnId: result.turn.id });
    expect(checkpoints.map((checkpoint) => [checkpoint.source, checkpoint.op, checkpoint.path, checkpoint.toolName])).toEqual([
      ['tool', 'create', 'workspace:notes.txt', 'write'],
      ['tool', 'modify', 'workspace:notes.txt', 'edit'],
      ['exec', 'create', 'workspace:shell.txt', 'bash'],
    ]);
    expect(new Set(checkpoints.map((checkpoint) => checkpoint.anchorMessageId))).toEqual(new Set([path[0]!.id]));
    expect(events.filter((event) => event.name === 'checkpoint-create')).toHaveLength(3);

    // Save points A and B for each of the two tool rounds.
    const points = await listSavePoints(waypoint.store, session.id, result.turn.id);
    expect(points.map((point) => `${point.point}${point.step}:${point.messageId}`)).toEqual([
      `A1:${path[1]!.id}`,
      `B1:${path[3]!.id}`,
      `A2:${path[4]!.id}`,
      `B2:${path[5]!.id}`,
    ]);

    // The boundary was pinned and the turn complete when turn-end was emitted.
    await new Promise((resolve) => setImmediate(resolve));
    expect(statusAtTurnEnd).toBe('complete');
    expect(boundaryAtTurnEnd).toEqual(path.map((message) => message.id));
    const turnEnd = events.find((event) => event.name === 'turn-end')!.event as { summary: { files: Array<{ displayPath: string; op: string }> } };
    expect(turnEnd.summary.files.map((file) => `${file.op} ${file.displayPath}`).sort()).toEqual(['create notes.txt', 'create shell.txt']);

    // Streaming: every text delta was emitted, and they add up to the stored text.
    const deltas = events.filter((event) => event.name === 'message-part').map((event) => event.event as { type: string; delta: string; messageId: string });
    expect(
      deltas
        .filter((delta) => delta.messageId === path[1]!.id && delta.type === 'text')
        .map((delta) => delta.delta)
        .join(''),
    ).toBe('I will create notes.txt and edit it.');

    // Event order for the turn.
    const order = events.map((event) => event.name).filter((name) => name !== 'message-part' && name !== 'checkpoint-create');
    expect(order).toEqual([
      'turn-start',
      'message-finish',
      'save-point',
      'tool-start',
      'tool-end',
      'tool-start',
      'tool-end',
      'save-point',
      'message-finish',
      'save-point',
      'tool-start',
      'tool-end',
      'save-point',
      'message-finish',
      'turn-end',
    ]);

    // The model saw the history as AI SDK messages: on its 2nd call, both tool results of the first round
    // (the SDK joins consecutive tool messages into one).
    const second = fixture.model.calls[1]!;
    expect(second.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect((second[3]!.content as Array<{ type: string; toolName: string }>).map((part) => `${part.type}:${part.toolName}`)).toEqual([
      'tool-result:write',
      'tool-result:edit',
    ]);
  });

  it('gives a failed tool an error result the model sees, and keeps going', async () => {
    fixture = await runtimeFixture([
      {
        toolCalls: [
          { toolName: 'edit', input: { path: 'missing.txt', oldString: 'a', newString: 'b' } },
          { toolName: 'read', input: { path: '../outside' } },
          { toolName: 'nope', input: {} },
        ],
      },
      { text: 'The file does not exist.' },
    ]);
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    const result = await fixture.runtime.runTurn(session.id, 'Edit missing.txt');
    expect(result.status).toBe('complete');
    const path = await fixture.waypoint.store.history(session.id);
    const outputs = path.filter((message) => message.role === 'tool').map((message) => message.parts[0]!.content!.output as { type: string; value: string });
    expect(outputs.map((output) => output.type)).toEqual(['error-text', 'error-text', 'error-text']);
    expect(outputs[0]!.value).toContain('EDIT_FILE_NOT_FOUND');
    expect(outputs[1]!.value).toContain('PATH_OUTSIDE_WORKSPACE');
    expect(outputs[2]!.value).toContain('Unknown tool "nope"');
  });

  it('reads, globs and greps inside the workspace only', async () => {
    fixture = await runtimeFixture([
      {
        toolCalls: [
          { toolName: 'read', input: { path: 'src/a.ts', offset: 2, limit: 1 } },
          { toolName: 'glob', input: { pattern: '**/*.ts' } },
          { toolName: 'grep', input: { pattern: 'export', include: '*.ts' } },
        ],
      },
      { text: 'ok' },
    ]);
    writeFileSync(join(fixture.workdir, 'top.ts'), 'export const top = 1;\n');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(fixture.workdir, 'src'));
    writeFileSync(join(fixture.workdir, 'src', 'a.ts'), 'line one\nexport const a = 2;\nline three\n');
    writeFileSync(join(fixture.workdir, 'src', 'b.js'), 'export default 3;\n');
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    await fixture.runtime.runTurn(session.id, 'Look around');
    const path = await fixture.waypoint.store.history(session.id);
    const outputs = path.filter((message) => message.role === 'tool').map((message) => (message.parts[0]!.content!.output as { value: string }).value);
    expect(outputs[0]).toBe('2\texport const a = 2;\n(1 more lines; read on with offset 3)');
    expect(outputs[1]).toBe('src/a.ts\ntop.ts');
    expect(outputs[2]).toBe('src/a.ts:2:export const a = 2;\ntop.ts:1:export const top = 1;');
  });
});
