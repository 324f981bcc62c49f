import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectGarbage } from '../blobs/index.js';
import { SUBAGENT_METADATA, type SubagentLink } from '../history/index.js';
import { hashContent, newId, type JsonValue } from '../model/index.js';
import { openCaptureContext } from './capture-context.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from './fixtures/capture-fixture.js';
import { applyToolWrite } from './tool-checkpoint.js';
import { beginExec, endExec } from './exec-capture.js';
import { deleteSessionWithSubagents, trimSessions } from './retention.js';

describe('trimSessions', () => {
  let fx: CaptureFixture;
  beforeEach(async () => {
    fx = await createCaptureFixture();
  });
  afterEach(() => fx.cleanup());

  /** A session with its own workdir, one turn, a checkpointed write and an exec scan. */
  async function sessionWithFiles(name: string) {
    const workdir = join(fx.dir, name);
    mkdirSync(workdir);
    const session = await fx.store.createSession({ title: name, workdir });
    const user = await fx.store.appendMessage({ sessionId: session.id, role: 'user', parts: [{ type: 'text', text: name }] });
    const turn = await fx.store.createTurn({ sessionId: session.id, userMessageId: user.message.id });
    const context = await openCaptureContext({ store: fx.store, blobs: fx.blobs, sessionId: session.id, turnId: turn.id });
    await applyToolWrite(context, { path: 'file.txt', content: `only in ${name}` });
    await endExec(await beginExec(context));
    return session;
  }

  it('deletes the oldest sessions beyond keepSessions, then frees the blobs only they referenced', async () => {
    const oldest = await sessionWithFiles('s1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const middle = await sessionWithFiles('s2');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newest = await sessionWithFiles('s3');
    // The fixture's own session is the oldest of all.
    const dry = await trimSessions(fx.store, { keepSessions: 2, dryRun: true });
    expect(dry.removedSessions.map((session) => session.id)).toEqual([fx.sessionId, oldest.id]);
    expect(await fx.store.findSession(oldest.id)).not.toBeNull();
    expect(await fx.blobs.has(hashContent('only in s1'))).toBe(true);

    const report = await trimSessions(fx.store, { keepSessions: 2 });
    expect(report.removedSessions.map((session) => session.id)).toEqual([fx.sessionId, oldest.id]);
    expect(report.keptSessions).toBe(2);
    expect(report.freedBytes).toBeGreaterThan(0);
    expect(report.gc.unreachable).toContain(hashContent('only in s1'));
    expect(await fx.store.findSession(oldest.id)).toBeNull();
    expect(await fx.blobs.has(hashContent('only in s1'))).toBe(false);
    // Kept sessions keep their checkpoint blobs and their exec scan state (pinned).
    expect((await fx.blobs.get(hashContent('only in s2'))).toString()).toBe('only in s2');
    expect((await fx.store.listSessions()).map((session) => session.id)).toEqual([middle.id, newest.id]);
    expect(report.gc.missingRoots).toEqual([]);
  });

  it('counts session families by last activity: a busy main session and its empty fork stay or go together', async () => {
    const main = await sessionWithFiles('main');
    const head = (await fx.store.getSession(main.id)).headMessageId!;
    const { session: fork } = await fx.store.forkSession({ parentSessionId: main.id, at: head, kind: 'fork' });
    const { session: forkOfFork } = await fx.store.forkSession({ parentSessionId: fork.id, at: head, kind: 'side_chat' });
    await pause();
    const later = await sessionWithFiles('later');
    await pause();
    // The main session goes on working after `later` was created: its family is the most active.
    for (let turn = 0; turn < 10; turn++) await fx.store.appendMessage({ sessionId: main.id, role: 'user', parts: [{ type: 'text', text: `turn ${turn}` }] });

    const one = await trimSessions(fx.store, { keepSessions: 1, dryRun: true });
    expect(ids(one.removedSessions)).toEqual([fx.sessionId, later.id]);
    expect(one.keptFamilies).toBe(1);
    const two = await trimSessions(fx.store, { keepSessions: 2, dryRun: true });
    expect(ids(two.removedSessions)).toEqual([fx.sessionId]);
    // A confirmed list that misses a family member keeps that family whole.
    const partial = await trimSessions(fx.store, { keepSessions: 1, dryRun: true, only: [fx.sessionId, main.id] });
    expect(ids(partial.removedSessions)).toEqual([fx.sessionId]);

    // With `later` the most active, keepSessions 1 deletes the main family whole: forks first, nothing left behind.
    await fx.store.appendMessage({ sessionId: later.id, role: 'user', parts: [{ type: 'text', text: 'busy now' }] });
    const report = await trimSessions(fx.store, { keepSessions: 1 });
    expect(ids(report.removedSessions).sort()).toEqual([fx.sessionId, main.id, fork.id, forkOfFork.id].sort());
    expect(report.removedSessions.find((removed) => removed.id === fork.id)).toMatchObject({ kind: 'fork', familyId: main.id });
    expect(ids(await fx.store.listSessions())).toEqual([later.id]);
  });

  it('keepSessions 0 disables trimming; a negative count is refused', async () => {
    await sessionWithFiles('s1');
    const report = await trimSessions(fx.store, { keepSessions: 0 });
    expect(report.removedSessions).toEqual([]);
    expect((await fx.store.listSessions()).length).toBe(2);
    expect(await errorCode(() => trimSessions(fx.store, { keepSessions: -1 }))).toBe('INVALID_ARGUMENT');
  });

  /**
   * A subagent transcript session the way the runtime writes one: a `fork` starting empty in the
   * parent's tree, `metadata.subagent` naming the parent's turn and tool call, one turn whose input
   * is the prompt. With `content`, it also records a checkpoint of its own (the runtime records a
   * subagent's file changes on the parent turn, but retention must not depend on that).
   */
  async function subagentSession(parentId: string, description: string, content?: string) {
    const parent = await fx.store.getSession(parentId);
    const [parentTurn] = await fx.store.listTurns(parentId);
    const link: SubagentLink = { parentSessionId: parentId, parentTurnId: parentTurn?.id ?? 'turn_none', toolCallId: `call_${description}`, description };
    const turnId = newId('turn');
    const { session } = await fx.store.forkSession({
      parentSessionId: parentId,
      at: null,
      kind: 'fork',
      title: `Subagent: ${description}`,
      metadata: { [SUBAGENT_METADATA]: link as unknown as JsonValue },
      messages: [{ role: 'user', kind: 'input', parts: [{ type: 'text', text: `do ${description}` }], turnId }],
    });
    await fx.store.createTurn({
      id: turnId,
      sessionId: session.id,
      userMessageId: session.headMessageId!,
      metadata: { [SUBAGENT_METADATA]: link as unknown as JsonValue },
    });
    if (content !== undefined) {
      const context = await openCaptureContext({ store: fx.store, blobs: fx.blobs, sessionId: session.id, turnId });
      await applyToolWrite(context, { path: `${description}.txt`, content });
    }
    expect(session.treeId).toBe(parent.treeId);
    return session;
  }

  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
  const ids = (sessions: Array<{ id: string }>) => sessions.map((session) => session.id);
  const family = (familyId: string) => ({ kind: 'main', familyId, familyLastActivityAt: expect.any(Number) });

  it('does not count subagent sessions, and deletes them (their checkpoints, messages and blobs) with their parent', async () => {
    const s1 = await sessionWithFiles('s1');
    await pause();
    const s1Helper = await subagentSession(s1.id, 'helper', 'only in the helper of s1');
    const s1Second = await subagentSession(s1.id, 'second');
    await pause();
    const s2 = await sessionWithFiles('s2');
    await pause();
    const s2Helper = await subagentSession(s2.id, 'helper2', 'only in the helper of s2');
    await pause();
    const s3 = await sessionWithFiles('s3');
    // Newer than s1 and s2, but not a session of its own: keepSessions 2 keeps s2 and s3 (and
    // s2's subagent), not s3 and two subagent transcripts.
    await pause();
    await subagentSession(s3.id, 'late');
    const prompt = (await fx.store.history(s1Helper.id))[0]!;
    const [helperCheckpoint] = await fx.store.listCheckpoints(s1Helper.id);

    const dry = await trimSessions(fx.store, { keepSessions: 2, dryRun: true });
    expect(ids(dry.removedSessions)).toEqual([fx.sessionId, s1.id]);
    expect(dry.removedSessions[1]!.subagentSessions.map((session) => session.id)).toEqual([s1Helper.id, s1Second.id]);
    expect(dry.removedSessions[0]!.subagentSessions).toEqual([]);
    expect(dry.keptSessions).toBe(2);
    expect(await fx.store.findSession(s1Helper.id)).not.toBeNull();

    const report = await trimSessions(fx.store, { keepSessions: 2 });
    expect(report.removedSessions).toEqual([
      { id: fx.sessionId, title: 'capture', createdAt: expect.any(Number), subagentSessions: [], ...family(fx.sessionId) },
      {
        ...family(s1.id),
        id: s1.id,
        title: 's1',
        createdAt: s1.createdAt,
        subagentSessions: [
          { id: s1Helper.id, title: 'Subagent: helper', createdAt: s1Helper.createdAt },
          { id: s1Second.id, title: 'Subagent: second', createdAt: s1Second.createdAt },
        ],
      },
    ]);
    expect(report.orphanSubagentSessions).toEqual([]);
    expect(report.keptSessions).toBe(2);
    const left = await fx.store.listSessions();
    expect(left.map((session) => session.title).sort()).toEqual(['Subagent: helper2', 'Subagent: late', 's2', 's3']);
    // No orphan: every remaining subagent session's parent is still there.
    expect(left.find((session) => session.id === s2Helper.id)!.parentSessionId).toBe(s2.id);
    // The deleted subagent's transcript, checkpoint and blob are gone; the kept one's stay.
    expect(await fx.store.findMessage(prompt.id)).toBeNull();
    expect(await errorCode(() => fx.store.getCheckpoint(helperCheckpoint!.id))).toBe('CHECKPOINT_NOT_FOUND');
    expect(report.gc.unreachable).toContain(hashContent('only in the helper of s1'));
    expect(await fx.blobs.has(hashContent('only in the helper of s1'))).toBe(false);
    expect((await fx.blobs.get(hashContent('only in the helper of s2'))).toString()).toBe('only in the helper of s2');
    expect(await fx.store.listCheckpoints(s2Helper.id)).toHaveLength(1);
    expect(report.gc.missingRoots).toEqual([]);
  });

  it('deletes subagent sessions whose parent was deleted before (orphans) when it trims', async () => {
    const s1 = await sessionWithFiles('s1');
    const helper = await subagentSession(s1.id, 'helper', 'only in the orphan');
    // Deleted straight through the store: the subagent session is left without its parent.
    await fx.store.deleteSession(s1.id);
    expect((await fx.store.getSession(helper.id)).parentSessionId).toBeNull();
    // Trimming off: nothing is deleted, orphans included.
    expect((await trimSessions(fx.store, { keepSessions: 0 })).orphanSubagentSessions).toEqual([]);
    expect(await fx.store.findSession(helper.id)).not.toBeNull();

    const report = await trimSessions(fx.store, { keepSessions: 5 });
    expect(report.removedSessions).toEqual([]);
    expect(ids(report.orphanSubagentSessions)).toEqual([helper.id]);
    expect(report.keptSessions).toBe(1);
    expect(ids(await fx.store.listSessions())).toEqual([fx.sessionId]);
    expect(await fx.blobs.has(hashContent('only in the orphan'))).toBe(false);
  });

  it('deleteSessionWithSubagents: the session and its subagents (nested too), not its forks; GC then frees their blobs', async () => {
    const s1 = await sessionWithFiles('s1');
    const helper = await subagentSession(s1.id, 'helper', 'only in the helper');
    const nested = await subagentSession(helper.id, 'nested', 'only in the nested helper');
    const { session: fork } = await fx.store.forkSession({ parentSessionId: s1.id, at: null, kind: 'fork', title: 'a plain fork' });
    const other = await subagentSession(fx.sessionId, 'other');

    const dry = await deleteSessionWithSubagents(fx.store, s1.id, { dryRun: true });
    expect(dry).toEqual({
      dryRun: true,
      session: { id: s1.id, title: 's1', createdAt: s1.createdAt },
      subagentSessions: [
        { id: helper.id, title: 'Subagent: helper', createdAt: helper.createdAt },
        { id: nested.id, title: 'Subagent: nested', createdAt: nested.createdAt },
      ],
    });
    expect(await fx.store.findSession(nested.id)).not.toBeNull();

    const report = await deleteSessionWithSubagents(fx.store, s1.id);
    expect(ids(report.subagentSessions)).toEqual([helper.id, nested.id]);
    expect(ids(await fx.store.listSessions()).sort()).toEqual([fx.sessionId, fork.id, other.id].sort());
    expect(await fx.blobs.has(hashContent('only in the nested helper'))).toBe(true);
    const gc = await collectGarbage(fx.store);
    expect(gc.unreachable).toEqual(
      expect.arrayContaining([hashContent('only in the helper'), hashContent('only in the nested helper'), hashContent('only in s1')]),
    );
    expect(await fx.blobs.has(hashContent('only in the nested helper'))).toBe(false);
    expect(gc.missingRoots).toEqual([]);

    // A subagent session can be deleted on its own; an unknown id is refused.
    await deleteSessionWithSubagents(fx.store, other.id);
    expect(await fx.store.findSession(other.id)).toBeNull();
    expect(await errorCode(() => deleteSessionWithSubagents(fx.store, 'ses_missing'))).toBe('SESSION_NOT_FOUND');
  });
});
