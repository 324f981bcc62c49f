import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRewind } from './apply-rewind.js';
import { createOperationsFixture, type FixtureTurn, type OperationsFixture } from './fixtures/operations-fixture.js';
import type { OperationEvents } from './operation-events.js';
import { previewRewind } from './preview-rewind.js';
import { redo } from './redo.js';
import { rewind } from './rewind.js';
import { rewindStatus } from './rewind-status.js';
import { rewindToSavePoint } from './rewind-to-save-point.js';

let fx: OperationsFixture;
let first: FixtureTurn;
let second: FixtureTurn;

beforeEach(async () => {
  fx = await createOperationsFixture();
  first = await fx.turn('Write a', { 'a.txt': 'a1\n' });
  second = await fx.turn('Change a, write b', { 'a.txt': 'a2\n', 'b.txt': 'b1\n' });
});
afterEach(() => fx.cleanup());

describe('rewind (direct forms)', () => {
  it('refuses while a turn runs, before reading anything', async () => {
    const error = await fx.refused('TURN_RUNNING', (context) => rewind(context, { sessionId: fx.sessionId, kind: 'latest' }), { running: true });
    expect(error.details).toMatchObject({ sessionId: fx.sessionId, action: 'rewind' });
  });

  it('refuses a checkpoint another session recorded', async () => {
    const other = await fx.waypoint.history.createSession({ title: 'Other', workdir: fx.ws });
    const foreign = await fx.turn('Write c', { 'c.txt': 'c\n' }, other.id);
    await fx.refused('CHECKPOINT_NOT_IN_SESSION', (context) =>
      rewind(context, { sessionId: fx.sessionId, kind: 'checkpoint', checkpointId: foreign.checkpointIds[0]! }),
    );
  });

  it('refuses a file rewind when the workspace is gone, and a both/cascade target that is not a user input', async () => {
    await fx.refused('REWIND_TARGET_NOT_USER_INPUT', (context) => rewind(context, { sessionId: fx.sessionId, messageId: second.replyId, scope: 'both' }));
    await fx.refused('REWIND_TARGET_NOT_USER_INPUT', (context) =>
      rewind(context, { sessionId: fx.sessionId, messageId: second.replyId, scope: 'workspace', cascade: true }),
    );
    rmSync(fx.ws, { recursive: true });
    await fx.refused('WORKSPACE_MISSING', (context) => rewind(context, { sessionId: fx.sessionId, messageId: second.inputId, scope: 'both' }));
  });

  it('refuses a malformed request with INVALID_ARGUMENT', async () => {
    await fx.refused('INVALID_ARGUMENT', (context) => rewind(context, { sessionId: fx.sessionId, messageId: second.inputId, scope: 'everything' } as never));
  });

  it('both: files and conversation in one commit, the event emitted after it with the result every surface renders', async () => {
    const seen: Array<OperationEvents['rewind']> = [];
    const result = await rewind(
      { waypoint: fx.waypoint, events: { emit: (name, event) => name === 'rewind' && seen.push(event as OperationEvents['rewind']) } },
      { sessionId: fx.sessionId, messageId: second.inputId, scope: 'both' },
    );
    expect(result).toMatchObject({
      type: 'rewind',
      form: { kind: 'message', scope: 'both', cascade: false },
      checked: false,
      conversation: { targetMessageId: second.inputId, headMessageId: first.replyId, draft: 'Change a, write b' },
    });
    // Without cascade: the latest change of that input (b.txt created) goes back; a.txt stays.
    expect(existsSync(join(fx.ws, 'b.txt'))).toBe(false);
    expect(fx.read('a.txt')).toBe('a2\n');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.session.headMessageId).toBe(first.replyId);
    expect(seen[0]!.result).toBe(result);
  });
});

describe('previewRewind and applyRewind (checked)', () => {
  it('previewRewind refuses an ambiguous target, and lastTurn in a session without changes', async () => {
    await fx.refused('INVALID_ARGUMENT', (context) => previewRewind(context, { sessionId: fx.sessionId, messageId: second.inputId, turnId: second.turnId }));
    const empty = await fx.waypoint.history.createSession({ title: 'Empty', workdir: fx.ws });
    await fx.refused('NOTHING_TO_UNDO', (context) => previewRewind(context, { sessionId: empty.id, lastTurn: true }));
  });

  it('applyRewind refuses a file changed since the agent wrote it unless resolved; with force it applies', async () => {
    const preview = await previewRewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, messageId: second.inputId });
    writeFileSync(join(fx.ws, 'a.txt'), 'mine\n');
    await fx.refused('REWIND_CONFLICT', (context) => applyRewind(context, { sessionId: fx.sessionId, preview }));
    const unresolved = await previewRewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, messageId: second.inputId });
    expect(unresolved.canApply).toBe(false);
    await fx.refused('REWIND_CONFLICT', (context) => applyRewind(context, { sessionId: fx.sessionId, preview: unresolved, scope: 'both' }));
    const forced = await previewRewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, messageId: second.inputId, resolutions: { 'a.txt': 'force' } });
    const result = await applyRewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, preview: forced, scope: 'both' });
    expect(result).toMatchObject({
      checked: true,
      conversation: { targetMessageId: second.inputId },
      preview: { resolutions: { 'workspace:a.txt': 'force' } },
    });
    expect(fx.read('a.txt')).toBe('a1\n');
  });

  it('applyRewind refuses while a turn runs, a preview of another session, and scope both on a turn preview', async () => {
    const byTurn = await previewRewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, lastTurn: true });
    expect(byTurn.target).toEqual({ turnId: second.turnId });
    await fx.refused('TURN_RUNNING', (context) => applyRewind(context, { sessionId: fx.sessionId, preview: byTurn }), { running: true });
    await fx.refused('PREVIEW_TARGET_MISMATCH', (context) => applyRewind(context, { sessionId: fx.sessionId, preview: byTurn, scope: 'both' }));
    const other = await fx.waypoint.history.createSession({ title: 'Other', workdir: fx.ws });
    await fx.refused('PREVIEW_SESSION_MISMATCH', (context) => applyRewind(context, { sessionId: other.id, preview: byTurn }));
  });
});

describe('redo and save points', () => {
  it('redo refuses with nothing to redo, an unknown rewind id, force without an id, and while a turn runs', async () => {
    await fx.refused('NOTHING_TO_REDO', (context) => redo(context, { sessionId: fx.sessionId }));
    await fx.refused('REWIND_NOT_FOUND', (context) => redo(context, { sessionId: fx.sessionId, rewindId: 'jnl_00000000000000000000000000' }));
    await fx.refused('INVALID_ARGUMENT', (context) => redo(context, { sessionId: fx.sessionId, force: ['a.txt'] }));
    const undone = await rewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, kind: 'latest' });
    await fx.refused('TURN_RUNNING', (context) => redo(context, { sessionId: fx.sessionId, rewindId: undone.files!.rewindId! }), { running: true });
  });

  it('redo refuses a file changed since the rewind unless forced; then puts it back', async () => {
    const undone = await rewind({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, messageId: second.inputId, scope: 'workspace', cascade: true });
    writeFileSync(join(fx.ws, 'a.txt'), 'mine\n');
    await fx.refused('REWIND_CONFLICT', (context) => redo(context, { sessionId: fx.sessionId, rewindId: undone.files!.rewindId! }));
    const redone = await redo({ waypoint: fx.waypoint }, { sessionId: fx.sessionId, rewindId: undone.files!.rewindId!, force: ['a.txt'] });
    expect(redone).toMatchObject({ type: 'files', conversation: null });
    expect(fx.read('a.txt')).toBe('a2\n');
    expect((await rewindStatus({ waypoint: fx.waypoint }, { sessionId: fx.sessionId })).redo.fileRewinds[0]!.kind).toContain('redo of');
  });

  it('rewindToSavePoint refuses a missing save point and while a turn runs', async () => {
    await fx.refused('SAVE_POINT_NOT_FOUND', (context) => rewindToSavePoint(context, { sessionId: fx.sessionId, turn: first.turnId, point: 'A' }));
    await fx.refused('TURN_RUNNING', (context) => rewindToSavePoint(context, { sessionId: fx.sessionId, turn: 1 }), { running: true });
  });

  it('rewindStatus refuses an unknown session', async () => {
    await fx.refused('SESSION_NOT_FOUND', (context) => rewindStatus(context, { sessionId: 'ses_00000000000000000000000000' }));
  });
});
