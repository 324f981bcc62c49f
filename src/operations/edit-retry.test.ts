import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { edit } from './edit.js';
import { createOperationsFixture, type FixtureTurn, type OperationsFixture } from './fixtures/operations-fixture.js';
import { retry } from './retry.js';

let fx: OperationsFixture;
let first: FixtureTurn;
let second: FixtureTurn;
const started: string[] = [];
const startTurn = async (text: string) => {
  started.push(text);
  return text;
};

beforeEach(async () => {
  started.length = 0;
  fx = await createOperationsFixture();
  first = await fx.turn('Write a', { 'a.txt': 'a1\n' });
  second = await fx.turn('Change a', { 'a.txt': 'a2\n' });
});
afterEach(() => fx.cleanup());

describe('edit', () => {
  it('refuses while a turn runs, an input that is not the last, and an empty text; no turn starts', async () => {
    await fx.refused('TURN_RUNNING', (context) => edit(context, { sessionId: fx.sessionId, messageId: second.inputId, text: 'x' }, startTurn), {
      running: true,
    });
    await fx.refused('EDIT_NOT_LAST_INPUT', (context) => edit(context, { sessionId: fx.sessionId, messageId: first.inputId, text: 'x' }, startTurn));
    await fx.refused('INVALID_ARGUMENT', (context) => edit(context, { sessionId: fx.sessionId, messageId: second.inputId, text: '   ' }, startTurn));
    expect(started).toEqual([]);
  });

  it('with workspace rewind, refuses a file changed since the agent wrote it (EDIT_FILES_UNSAFE)', async () => {
    writeFileSync(join(fx.ws, 'a.txt'), 'mine\n');
    const error = await fx.refused('EDIT_FILES_UNSAFE', (context) =>
      edit(context, { sessionId: fx.sessionId, messageId: second.inputId, text: 'Change a again', workspace: 'rewind' }, startTurn),
    );
    expect(error.details.preview).toBeDefined();
    expect(started).toEqual([]);
  });

  it('edits: the files go back with the head in one commit, then the new turn starts with the new text', async () => {
    const events: string[] = [];
    const result = await edit(
      { waypoint: fx.waypoint, events: { emit: (name, event) => events.push(`${name}:${(event as { kind: string }).kind}`) } },
      { sessionId: fx.sessionId, messageId: second.inputId, text: 'Change a to a3', workspace: 'rewind' },
      startTurn,
    );
    expect(fx.read('a.txt')).toBe('a1\n');
    expect(result.session.headMessageId).toBe(first.replyId);
    expect(events).toEqual(['rewind:edit']);
    expect(started).toEqual(['Change a to a3']);
  });
});

describe('retry', () => {
  it('refuses while a turn runs and anything but the last reply; no turn starts', async () => {
    await fx.refused('TURN_RUNNING', (context) => retry(context, { sessionId: fx.sessionId, messageId: second.replyId }, startTurn), { running: true });
    await fx.refused('RETRY_NOT_LAST_REPLY', (context) => retry(context, { sessionId: fx.sessionId, messageId: first.replyId }, startTurn));
    await fx.refused('RETRY_NOT_LAST_REPLY', (context) => retry(context, { sessionId: fx.sessionId, messageId: second.inputId }, startTurn));
    expect(started).toEqual([]);
  });

  it('retries the last reply with the same input', async () => {
    const result = await retry({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, messageId: second.replyId }, startTurn);
    expect(result).toMatchObject({ text: 'Change a', turn: 'Change a' });
    expect(result.session.headMessageId).toBe(first.replyId);
  });
});
