import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashContent } from '../model/index.js';
import { openCaptureContext } from './capture-context.js';
import { createCaptureFixture, errorCode, type CaptureFixture } from './fixtures/capture-fixture.js';
import { applyToolWrite } from './tool-checkpoint.js';
import { beginExec, endExec } from './exec-capture.js';
import { trimSessions } from './retention.js';

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

  it('keepSessions 0 disables trimming; a negative count is refused', async () => {
    await sessionWithFiles('s1');
    const report = await trimSessions(fx.store, { keepSessions: 0 });
    expect(report.removedSessions).toEqual([]);
    expect((await fx.store.listSessions()).length).toBe(2);
    expect(await errorCode(() => trimSessions(fx.store, { keepSessions: -1 }))).toBe('INVALID_ARGUMENT');
  });
});
