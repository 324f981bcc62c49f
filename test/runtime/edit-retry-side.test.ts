import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { uiView } from '../../src/history/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

describe('edit, retry, side chat, save points and forks through the runtime', () => {
  it("edit with workspace rewind undoes the turn's files, then runs the new input as a turn", async () => {
    fixture = await runtimeFixture([
      { toolCalls: [{ toolName: 'write', input: { path: 'color.txt', content: 'red\n' } }] },
      { text: 'Red it is.' },
      { toolCalls: [{ toolName: 'write', input: { path: 'shade.txt', content: 'blue\n' } }] },
      { text: 'Blue it is.' },
    ]);
    const { runtime, waypoint, workdir } = fixture;
    const session = await runtime.startSession({ workdir });
    const first = await runtime.runTurn(session.id, 'Pick red');
    const inputId = first.turn.userMessageId;
    const edited = await runtime.edit({ sessionId: session.id, messageId: inputId, text: 'Pick blue', workspace: 'rewind' });
    expect(edited.preview?.files.length).toBe(1);
    expect(existsSync(join(workdir, 'color.txt'))).toBe(false);
    expect(readFileSync(join(workdir, 'shade.txt'), 'utf8')).toBe('blue\n');
    expect(edited.turn.text).toBe('Blue it is.');
    const path = await waypoint.store.history(session.id);
    expect(path[0]!.parts[0]!.content!.text).toBe('Pick blue');
    expect(fixture.events.filter((event) => event.name === 'rewind').map((event) => (event.event as { kind: string }).kind)).toEqual(['edit']);
  });

  it('retry runs the last input again; rewind is refused while a turn runs', async () => {
    fixture = await runtimeFixture([
      { toolCalls: [{ toolName: 'bash', input: { command: 'echo working' } }] },
      { text: 'First answer.' },
      { text: 'Second answer.' },
    ]);
    const { runtime, waypoint, workdir } = fixture;
    const session = await runtime.startSession({ workdir });
    const running = runtime.runTurn(session.id, 'Answer me'); // marked running before runTurn returns its promise
    await expect(runtime.rewind({ sessionId: session.id, messageId: 'msg_x', scope: 'conversation' })).rejects.toMatchObject({ code: 'TURN_RUNNING' });
    await expect(runtime.runTurn(session.id, 'Me too')).rejects.toMatchObject({ code: 'TURN_RUNNING' });
    const first = await running;
    const retried = await runtime.retry({ sessionId: session.id, messageId: first.finalMessageId! });
    expect(retried.text).toBe('Answer me');
    expect(retried.turn.text).toBe('Second answer.');
    const path = await waypoint.store.history(session.id);
    expect(path.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('side chat: a fork at the latest input whose first turn asks the question; the person sees only the side conversation', async () => {
    fixture = await runtimeFixture([{ text: 'Main answer.' }, { text: 'Side answer.' }]);
    const { runtime, waypoint, workdir } = fixture;
    const session = await runtime.startSession({ workdir, title: 'Main' });
    await runtime.runTurn(session.id, 'Main question');
    const side = await runtime.side(session.id, 'What about X?');
    expect(side.session.kind).toBe('side_chat');
    expect(side.turn.text).toBe('Side answer.');
    const history = await waypoint.store.history(side.session.id);
    expect(uiView(history, { startAfter: side.session.forkedFromMessageId }).map((message) => message.role)).toEqual(['user', 'assistant']);
    // The model saw the inherited conversation, the side-chat reminder, and the question.
    const seen = fixture.model.calls[1]!;
    expect(JSON.stringify(seen)).toContain('Main question');
    expect(JSON.stringify(seen)).toContain('What about X?');
    expect((await waypoint.store.history(session.id)).length).toBe(2); // the main session is untouched
  });

  it('rewinds to save point A of a turn, and forks from one', async () => {
    fixture = await runtimeFixture([{ toolCalls: [{ toolName: 'write', input: { path: 'x.txt', content: 'x\n' } }] }, { text: 'Wrote x.' }]);
    const { runtime, waypoint, workdir } = fixture;
    const session = await runtime.startSession({ workdir });
    const turn = await runtime.runTurn(session.id, 'Write x');
    const fork = await runtime.forkFrom({ sessionId: session.id, turn: 1, point: 'B', name: 'After the write', workspace: { mode: 'isolated' } });
    expect(readFileSync(join(fork.session.workdir!, 'x.txt'), 'utf8')).toBe('x\n');
    const point = await runtime.rewindToSavePoint({ sessionId: session.id, turn: turn.turn.id, point: 'A' });
    const head = (await waypoint.store.getSession(session.id)).headMessageId;
    expect(head).toBe(point.messageId);
    expect((await waypoint.store.getMessage(head!)).parts.map((part) => part.type)).toEqual(['tool-call']);
  });
});
