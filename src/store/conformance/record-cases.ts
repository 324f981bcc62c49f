import { expect } from 'vitest';
import { expectCode, text } from './conformance-context.js';
import type { ConformanceCase } from './run-store-conformance.js';

const hash = (char: string) => char.repeat(64);

export const recordCases: Record<string, ConformanceCase> = {
  async 'turns start at a user message and record their status and boundary'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const user = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('q')] });
    const reply = await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('a')] });
    const turn = await store.createTurn({ sessionId: session.id, userMessageId: user.message.id });
    expect(turn).toMatchObject({ status: 'running', boundary: null, branchGeneration: 0 });
    const done = await store.updateTurn(turn.id, { status: 'complete', boundary: [user.message.id, reply.message.id], endedAt: 5 });
    expect(done).toMatchObject({ status: 'complete', boundary: [user.message.id, reply.message.id], endedAt: 5 });
    expect(await store.getTurn(turn.id)).toEqual(done);
    expect(await store.listTurns(session.id, { status: 'complete' })).toEqual([done]);
    await expectCode(store.createTurn({ sessionId: session.id, userMessageId: reply.message.id }), 'INVALID_ARGUMENT');
    await expectCode(store.getTurn('trn_nope'), 'TURN_NOT_FOUND');
  },

  async 'checkpoints are numbered per session, listed newest-N, and survive a reopen'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const made = await store.addCheckpoints([
      { sessionId: session.id, op: 'create', path: 'a.txt', beforeHash: null, afterHash: hash('a'), source: 'tool', toolName: 'write', toolCallId: 'c1' },
      { sessionId: session.id, op: 'modify', path: 'a.txt', beforeHash: hash('a'), afterHash: hash('b'), source: 'fs', patch: '@@ -1 +1 @@' },
      { sessionId: session.id, op: 'delete', path: 'big.bin', beforeHash: null, afterHash: null, source: 'exec', status: 'skipped', skipReason: 'too_large' },
    ]);
    expect(made.map((checkpoint) => checkpoint.seq)).toEqual([1, 2, 3]);
    const reopened = await harness().reopen();
    expect((await reopened.listCheckpoints(session.id, { last: 2 })).map((checkpoint) => checkpoint.seq)).toEqual([2, 3]);
    expect(await reopened.getCheckpoint(made[1]!.id)).toEqual(made[1]);
    expect((await reopened.listCheckpoints(session.id))[2]).toMatchObject({ status: 'skipped', skipReason: 'too_large' });
    await expectCode(reopened.getCheckpoint('chk_nope'), 'CHECKPOINT_NOT_FOUND');
    expect(await reopened.blobRoots()).toEqual(new Set([hash('a'), hash('b')]));
  },

  async 'a batch of checkpoints with one bad session writes none of them'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    await expectCode(
      store.addCheckpoints([
        { sessionId: session.id, op: 'create', path: 'a', beforeHash: null, afterHash: hash('a'), source: 'tool' },
        { sessionId: 'ses_nope', op: 'create', path: 'b', beforeHash: null, afterHash: hash('b'), source: 'tool' },
      ]),
      'SESSION_NOT_FOUND',
    );
    expect(await store.listCheckpoints(session.id)).toEqual([]);
  },

  async 'journals are recorded pending and move to a final state'(harness) {
    const { store } = harness();
    const journal = await store.createJournal({ kind: 'file-rewind', root: '/w', items: [{ path: 'a', expectedHash: hash('a'), targetHash: null }] });
    expect(journal.state).toBe('pending');
    expect((await store.listJournals({ state: 'pending' })).map((entry) => entry.id)).toEqual([journal.id]);
    const committed = await store.setJournalState(journal.id, 'committed');
    expect(committed.state).toBe('committed');
    expect(await store.listJournals({ state: 'pending' })).toEqual([]);
    expect(await store.blobRoots()).toEqual(new Set([hash('a')]));
    await expectCode(store.setJournalState('jnl_nope', 'committed'), 'JOURNAL_NOT_FOUND');
  },

  async 'a journal recorded without a sync is pending at once, synced later, finished without one'(harness) {
    const { store } = harness();
    const journal = await store.createJournal(
      { kind: 'file-rewind', root: '/w', items: [{ path: 'a', expectedHash: hash('a'), targetHash: hash('b') }] },
      { durable: false },
    );
    expect((await store.listJournals({ state: 'pending' })).map((entry) => entry.id)).toEqual([journal.id]);
    await store.syncJournal(journal.id);
    expect((await store.getJournal(journal.id)).items).toEqual(journal.items);
    await store.setJournalState(journal.id, 'committed', {}, { durable: false });
    const reopened = await harness().reopen();
    expect((await reopened.getJournal(journal.id)).state).toBe('committed');
    await expectCode(reopened.syncJournal(journal.id), 'JOURNAL_FINISHED');
    await expectCode(reopened.syncJournal('jnl_nope'), 'JOURNAL_NOT_FOUND');
  },

  async 'a journal commits together with its entries and head moves, or not at all'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    const first = await store.appendMessage({ sessionId: session.id, role: 'user', parts: [text('q')] });
    await store.appendMessage({ sessionId: session.id, role: 'assistant', parts: [text('a')] });
    const failing = await store.createJournal({ kind: 'file-rewind', root: '/w', items: [] });
    await expectCode(
      store.setJournalState(failing.id, 'committed', {
        entries: [{ sessionId: session.id, entry: { type: 'file-rewind', data: { journalId: failing.id } } }],
        headMoves: [{ sessionId: session.id, to: 'msg_nope', reason: 'edit' }],
      }),
      'MESSAGE_NOT_FOUND',
    );
    expect((await store.getJournal(failing.id)).state).toBe('pending');
    expect(await store.listEntries(session.id, { type: 'file-rewind' })).toEqual([]);
    const journal = await store.createJournal({ kind: 'file-rewind', root: '/w', items: [] });
    await store.setJournalState(journal.id, 'committed', {
      entries: [{ sessionId: session.id, entry: { type: 'file-rewind', data: { journalId: journal.id } } }],
      headMoves: [{ sessionId: session.id, to: null, reason: 'edit', bumpGeneration: true }],
    });
    expect((await store.getSession(session.id)).headMessageId).toBeNull();
    expect((await store.listEntries(session.id, { type: 'file-rewind' }))[0]?.data).toEqual({ journalId: journal.id });
    await expectCode(store.setJournalState(journal.id, 'rolled_back'), 'JOURNAL_FINISHED');
    expect((await store.findMessage(first.message.id))?.id).toBe(first.message.id);
  },

  async 'effects form an append-only ledger findable by idempotency key'(harness) {
    const { store } = harness();
    const session = await store.createSession();
    await store.appendEffect({ sessionId: session.id, toolName: 'deploy', idempotencyKey: 'k1', status: 'started', request: { env: 'prod' } });
    await store.appendEffect({ sessionId: session.id, toolName: 'deploy', idempotencyKey: 'k1', status: 'succeeded', result: { ok: true } });
    const ledger = await store.listEffects({ idempotencyKey: 'k1' });
    expect(ledger.map((effect) => effect.status)).toEqual(['started', 'succeeded']);
    expect(ledger[0]!.request).toEqual({ env: 'prod' });
    expect(await store.listEffects({ sessionId: session.id })).toHaveLength(2);
  },

  async 'a command fact is recorded once; a replay returns the first result'(harness) {
    const { store } = harness();
    const first = await store.putCommandFact({ commandId: 'cmd_1', sessionId: null, kind: 'rewind', result: { to: 'a' } });
    const again = await store.putCommandFact({ commandId: 'cmd_1', sessionId: null, kind: 'rewind', result: { to: 'b' } });
    expect(again).toEqual(first);
    expect(await store.getCommandFact('cmd_2')).toBeNull();
  },

  async 'blob pins are roots until released'(harness) {
    const { store } = harness();
    await store.setBlobPins('scan:w', [hash('c'), hash('d')]);
    expect(await store.blobRoots()).toEqual(new Set([hash('c'), hash('d')]));
    await store.setBlobPins('scan:w', [hash('d')]);
    expect(await store.blobRoots()).toEqual(new Set([hash('d')]));
    await store.setBlobPins('scan:w', []);
    expect(await store.blobRoots()).toEqual(new Set());
  },

  async 'deleting a session releases the pins it owns, and only those'(harness) {
    const { store } = harness();
    const doomed = await store.createSession({ id: 'ses_a' });
    await store.createSession({ id: 'ses_ab' });
    await store.setBlobPins(`session:${doomed.id}`, [hash('1')]);
    await store.setBlobPins(`session:${doomed.id}:exec-files`, [hash('2')]);
    await store.setBlobPins('session:ses_ab:exec-files', [hash('3')]);
    await store.setBlobPins('scan:w', [hash('4')]);
    await store.deleteSession(doomed.id);
    expect(await store.blobRoots()).toEqual(new Set([hash('3'), hash('4')]));
  },
};
