import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EffectsLedger } from '../../history/index.js';
import { expectCode } from '../../store/conformance/index.js';
import { SqliteStore, type Store } from '../../store/index.js';
import { evaluateRewindTarget } from './evaluate-rewind-target.js';
import { redoConversation } from './redo-conversation.js';
import { repairDanglingToolCalls } from './repair-dangling.js';
import { listSavePoints, recordSavePoint, rewindToSavePoint } from './save-points.js';
import { TaskRegistry } from './task-registry.js';

describe('turn state: target evaluation, save points, resume repair, effects ledger', () => {
  let dir: string;
  let store: Store;
  let sessionId: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-turns-'));
    store = await SqliteStore.open({ path: join(dir, 'store.db') });
    sessionId = (await store.createSession()).id;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const user = async (text: string, kind?: 'summary') =>
    (
      await store.appendMessage({
        sessionId,
        role: 'user',
        parts: [{ type: 'text', text }],
        ...(kind ? { kind, metadata: { covers: { to: text.split(':')[1]! } } } : {}),
      })
    ).message;
  const reply = async (text: string, turnId: string | null = null) =>
    (await store.appendMessage({ sessionId, role: 'assistant', parts: [{ type: 'text', text }], turnId })).message;

  it('evaluates each target: the scopes it offers, or why it is not one', async () => {
    const u1 = await user('u1');
    const a1 = await reply('a1');
    const u2 = await user('u2');
    await reply('a2');
    expect(await evaluateRewindTarget(store, sessionId, u2.id, 'conversation')).toMatchObject({ strategy: 'active_chain', scopes: ['conversation'] });
    expect(await evaluateRewindTarget(store, sessionId, u2.id, 'workspace')).toMatchObject({ strategy: 'unavailable' });
    await store.addCheckpoints([
      { sessionId, anchorMessageId: u2.id, op: 'create', path: 'workspace:a', beforeHash: null, afterHash: 'a'.repeat(64), source: 'tool' },
    ]);
    expect(await evaluateRewindTarget(store, sessionId, u2.id, 'both')).toMatchObject({
      strategy: 'active_chain',
      scopes: ['conversation', 'workspace', 'both'],
      checkpointCount: 1,
    });
    expect(await evaluateRewindTarget(store, sessionId, u1.id, 'workspace')).toMatchObject({ strategy: 'active_chain', checkpointCount: 1 });
    await user(`summary:${a1.id}`, 'summary');
    await user('u3');
    const compactedFiles = await evaluateRewindTarget(store, sessionId, u1.id, 'workspace');
    expect(compactedFiles).toMatchObject({ strategy: 'file_only', scopes: ['workspace'], compacted: true });
    expect(await evaluateRewindTarget(store, sessionId, u1.id, 'conversation')).toMatchObject({ strategy: 'active_chain', compacted: true });
    expect(await evaluateRewindTarget(store, sessionId, a1.id, 'conversation')).toMatchObject({ strategy: 'unavailable' });
    expect(await evaluateRewindTarget(store, sessionId, 'msg_nope', 'conversation')).toMatchObject({ strategy: 'unavailable' });
  });

  it('rewinds to save point A or B of a turn (default: the last), redoably', async () => {
    const input = await user('deploy it');
    const turn = await store.createTurn({ sessionId, userMessageId: input.id });
    const proposal = (
      await store.appendMessage({
        sessionId,
        role: 'assistant',
        turnId: turn.id,
        parts: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'make' } }],
      })
    ).message;
    await recordSavePoint(store, { sessionId, turnId: turn.id, point: 'A', step: 1, messageId: proposal.id });
    const result = (
      await store.appendMessage({
        sessionId,
        role: 'tool',
        turnId: turn.id,
        parts: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'bash', output: { type: 'text', value: 'ok' } }],
      })
    ).message;
    await recordSavePoint(store, { sessionId, turnId: turn.id, point: 'B', step: 1, messageId: result.id });
    await reply('done', turn.id);
    expect((await listSavePoints(store, sessionId, 1)).map((point) => `${point.point}${point.step}`)).toEqual(['A1', 'B1']);
    expect((await rewindToSavePoint(store, { sessionId, turn: 1 })).point).toBe('B');
    expect((await store.getSession(sessionId)).headMessageId).toBe(result.id);
    await rewindToSavePoint(store, { sessionId, turn: turn.id, point: 'A' });
    expect((await store.getSession(sessionId)).headMessageId).toBe(proposal.id);
    await redoConversation(store, sessionId);
    expect((await store.getSession(sessionId)).headMessageId).toBe(result.id);
    const stuck = new TaskRegistry();
    stuck.register({ id: 'deploy-watch', sessionId, turnId: turn.id, branchGeneration: 0, stop: async () => false });
    const head = (await store.getSession(sessionId)).headMessageId;
    await expectCode(rewindToSavePoint(store, { sessionId, turn: 1, point: 'A', tasks: stuck }), 'TASK_STOP_FAILED');
    expect((await store.getSession(sessionId)).headMessageId).toBe(head);
    await expectCode(rewindToSavePoint(store, { sessionId, turn: 2 }), 'TURN_NOT_FOUND');
    await expectCode(rewindToSavePoint(store, { sessionId, turn: 1, step: 7 }), 'SAVE_POINT_NOT_FOUND');
  });

  it('repairs dangling tool calls after a crash with interrupted results, once', async () => {
    const input = await user('run the tests');
    const turn = await store.createTurn({ sessionId, userMessageId: input.id });
    await store.appendMessage({
      sessionId,
      role: 'assistant',
      turnId: turn.id,
      parts: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: {} },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: {} },
      ],
    });
    await store.appendMessage({
      sessionId,
      role: 'tool',
      turnId: turn.id,
      parts: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'text', value: 'x' } }],
    });
    const streaming = (
      await store.appendMessage({ sessionId, role: 'assistant', status: 'streaming', turnId: turn.id, parts: [{ type: 'text', text: 'Half a sent' }] })
    ).message;
    const repair = await repairDanglingToolCalls(store, sessionId);
    expect(repair.repairedCalls).toEqual([{ toolCallId: 'c1', toolName: 'bash' }]);
    expect(repair.interruptedTurns).toEqual([turn.id]);
    expect((await store.getTurn(turn.id)).status).toBe('interrupted');
    expect((await store.getMessage(streaming.id)).status).toBe('interrupted');
    const last = (await store.history(sessionId, { last: 1 }))[0]!;
    expect(last.parts[0]!.content).toMatchObject({ type: 'tool-result', toolCallId: 'c1', output: { type: 'error-text' } });
    expect(await repairDanglingToolCalls(store, sessionId)).toEqual({ repairedCalls: [], interruptedTurns: [], messageId: null });
  });

  it('keeps external effects across rewinds and detects a key that already succeeded; forks start clean', async () => {
    const ledger = new EffectsLedger(store);
    const input = await user('send the email');
    expect(await ledger.check(sessionId, 'email:42')).toEqual({ status: 'new' });
    const started = await ledger.begin({ sessionId, toolName: 'send_email', idempotencyKey: 'email:42', kind: 'external', request: { to: 'a@b.c' } });
    expect((await ledger.check(sessionId, 'email:42')).status).toBe('in_doubt');
    await ledger.succeed(started, { messageId: 'm1' });
    await store.moveHead({ sessionId, to: null, reason: 'rewind', bumpGeneration: true });
    expect((await ledger.check(sessionId, 'email:42')).status).toBe('succeeded');
    const { session: fork } = await store.forkSession({ parentSessionId: sessionId, at: input.id, kind: 'fork' });
    expect(await ledger.check(fork.id, 'email:42')).toEqual({ status: 'new' });
    await expectCode(ledger.begin({ sessionId, toolName: 'write', idempotencyKey: 'k', kind: 'workspace' }), 'INVALID_ARGUMENT');
  });
});
