import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyToolEdit,
  applyToolWrite,
  beginExec,
  captureExec,
  CheckpointedFs,
  endExec,
  openCaptureContext,
  recordToolChange,
  type CaptureContext,
} from '../../src/checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { SessionForker } from '../../src/fork/index.js';
import { SessionHistory } from '../../src/history/index.js';
import { WaypointError } from '../../src/model/index.js';
import { applySessionRewind, FileRewinder, redoConversation, rewindConversation, rewindSession, rewindToSavePoint } from '../../src/rewind/index.js';
import { snapshotDir } from '../fork/fork-fixture.js';

/**
 * Every public entry point a library user calls, given null, undefined and values of the wrong
 * type where it expects an object, a string, a buffer or a function: each must answer with a typed
 * `INVALID_ARGUMENT` naming the parameter (never a raw TypeError from deep inside), and change
 * nothing.
 */
describe('library entry points called with wrong types', () => {
  let dir: string;
  let workspace: string;
  let waypoint: Waypoint;
  let context: CaptureContext;
  let sessionId: string;
  let messageId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-types-'));
    workspace = join(dir, 'ws');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    waypoint = await openWaypoint({ path: join(dir, 'store', 'waypoint.db') });
    const session = await waypoint.history.createSession({ workdir: workspace });
    sessionId = session.id;
    const input = await waypoint.history.append(sessionId, { role: 'user', parts: [{ type: 'text', text: 'change a' }] });
    messageId = input.id;
    const turn = await waypoint.store.createTurn({ sessionId, userMessageId: input.id });
    context = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId, turnId: turn.id });
  });
  afterAll(async () => {
    await waypoint.close();
    rmSync(dir, { recursive: true, force: true });
  });

  type Call = [name: string, parameter: string | RegExp, call: () => unknown];
  const calls = (): Call[] => {
    const fs = new CheckpointedFs(context);
    const forker = new SessionForker({ store: waypoint.store, blobs: waypoint.blobs });
    const history = new SessionHistory(waypoint.store);
    const files = waypoint.files;
    const bad = <T>(value: unknown) => value as T;
    return [
      ['openWaypoint(null)', 'options', () => openWaypoint(bad(null))],
      ['openWaypoint({ path: 123 })', 'options.path', () => openWaypoint({ path: bad(123) })],
      ['openWaypoint({ readOnly: "yes" })', 'options.readOnly', () => openWaypoint({ path: join(dir, 'other.db'), readOnly: bad('yes') })],
      ['openWaypoint({ busyTimeoutMs: -1 })', 'options.busyTimeoutMs', () => openWaypoint({ path: join(dir, 'other.db'), busyTimeoutMs: -1 })],
      ['forker.fork(null)', 'request', () => forker.fork(bad(null))],
      ['forker.fork(undefined)', 'request', () => forker.fork(bad(undefined))],
      ['forker.fork({ onProgress: 1 })', 'request.onProgress', () => forker.fork({ from: 'side-chat', sessionId, onProgress: bad(1) })],
      ['forker.previewFork(null)', 'request', () => forker.previewFork(bad(null))],
      ['forker.forkFrom(null)', 'request', () => forker.forkFrom(bad(null))],
      ['new SessionForker(null)', 'options', () => new SessionForker(bad(null))],
      ['applyToolWrite(ctx, null)', 'input', () => applyToolWrite(context, bad(null))],
      ['applyToolWrite(ctx, { path: 1 })', 'input.path', () => applyToolWrite(context, { path: bad(1), content: 'x' })],
      ['applyToolWrite(ctx, { content: 5 })', 'input.content', () => applyToolWrite(context, { path: 'a.txt', content: bad(5) })],
      ['applyToolWrite(ctx, { mode: "755" })', 'input.mode', () => applyToolWrite(context, { path: 'a.txt', content: 'x', mode: bad('755') })],
      ['applyToolWrite(null, input)', 'context', () => applyToolWrite(bad(null), { path: 'a.txt', content: 'x' })],
      ['applyToolWrite({}, input)', /^context\./, () => applyToolWrite(bad({}), { path: 'a.txt', content: 'x' })],
      ['applyToolEdit(ctx, null)', 'input', () => applyToolEdit(context, bad(null))],
      ['applyToolEdit(ctx, { oldString: 1 })', 'input.oldString', () => applyToolEdit(context, { path: 'a.txt', oldString: bad(1), newString: 'b' })],
      ['recordToolChange(null)', 'input', () => recordToolChange(bad(null))],
      ['openCaptureContext(null)', 'options', () => openCaptureContext(bad(null))],
      [
        'openCaptureContext({ turnId: undefined })',
        'options.turnId',
        () => openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId, turnId: bad(undefined) }),
      ],
      ['new CheckpointedFs(null)', 'context', () => new CheckpointedFs(bad(null))],
      ['fs.writeFile(null, "x")', 'path', () => fs.writeFile(bad(null), 'x')],
      ['fs.writeFile("a.txt", 42)', 'content', () => fs.writeFile('a.txt', bad(42))],
      ['fs.writeFile("a.txt", "x", null)', 'options', () => fs.writeFile('a.txt', 'x', bad(null))],
      ['fs.deleteFile(undefined)', 'path', () => fs.deleteFile(bad(undefined))],
      ['fs.rename("a.txt", null)', 'to', () => fs.rename('a.txt', bad(null))],
      ['fs.move(1, "b")', 'from', () => fs.move(bad(1), 'b.txt')],
      ['fs.mkdir({})', 'path', () => fs.mkdir(bad({}))],
      ['fs.rmdir(null)', 'path', () => fs.rmdir(bad(null))],
      ['captureExec(ctx, "x")', 'fn', () => captureExec(context, bad('x'))],
      ['captureExec(null, fn)', 'context', () => captureExec(bad(null), () => undefined)],
      ['captureExec(ctx, fn, { maxFiles: "many" })', 'options.maxFiles', () => captureExec(context, () => undefined, { maxFiles: bad('many') })],
      ['beginExec(null)', 'context', () => beginExec(bad(null))],
      ['endExec(null)', 'handle', () => endExec(bad(null))],
      ['blobs.put(123)', 'content', () => waypoint.blobs.put(bad(123))],
      ['blobs.put(null)', 'content', () => waypoint.blobs.put(bad(null))],
      ['blobs.put(buffer, null)', 'options', () => waypoint.blobs.put(Buffer.from('text'), bad(null))],
      ['blobs.putMany(null)', 'items', () => waypoint.blobs.putMany(bad(null))],
      ['blobs.putMany([{ content: 1 }])', /^items\.0/, () => waypoint.blobs.putMany([bad({ content: 1 })])],
      ['blobs.get(null)', 'hash', () => waypoint.blobs.get(bad(null))],
      ['blobs.get(123)', 'hash', () => waypoint.blobs.get(bad(123))],
      ['blobs.getMany(null)', 'hashes', () => waypoint.blobs.getMany(bad(null))],
      ['blobs.getManySettled("abc")', 'hashes', () => waypoint.blobs.getManySettled(bad('abc'))],
      ['blobs.getManySettled([], { readOnly: "yes" })', 'options.readOnly', () => waypoint.blobs.getManySettled([], bad({ readOnly: 'yes' }))],
      ['blobs.has(null)', 'hash', () => waypoint.blobs.has(bad(null))],
      ['blobs.stat(1)', 'hash', () => waypoint.blobs.stat(bad(1))],
      ['files.restoreCheckpoint(null)', 'checkpointId', () => files.restoreCheckpoint(bad(null))],
      ['files.restoreLatest(undefined)', 'sessionId', () => files.restoreLatest(bad(undefined))],
      ['files.restoreMessage(sessionId, null)', 'messageId', () => files.restoreMessage(sessionId, bad(null))],
      ['files.cascade(null, m)', 'sessionId', () => files.cascade(bad(null), messageId)],
      ['files.rollbackTurn(42)', 'turnId', () => files.rollbackTurn(bad(42))],
      ['files.preview(null)', 'request', () => files.preview(bad(null))],
      ['files.apply(null)', 'preview', () => files.apply(bad(null))],
      ['files.redo(sessionId, null)', 'rewindId', () => files.redo(sessionId, bad(null))],
      ['files.redo(sessionId, id, null)', 'options', () => files.redo(sessionId, 'jnl_x', bad(null))],
      ['files.listRewinds(null)', 'sessionId', () => files.listRewinds(bad(null))],
      ['rewindConversation(store, null)', 'options', () => rewindConversation(waypoint.store, bad(null))],
      ['rewindConversation(store, { messageId: 1 })', /^options\./, () => rewindConversation(waypoint.store, bad({ sessionId, messageId: 1 }))],
      ['redoConversation(store, null)', 'sessionId', () => redoConversation(waypoint.store, bad(null))],
      ['rewindSession(store, files, null)', 'options', () => rewindSession(waypoint.store, files, bad(null))],
      ['applySessionRewind(store, files, null, options)', 'preview', () => applySessionRewind(waypoint.store, files, bad(null), { messageId })],
      ['applySessionRewind(store, files, preview, null)', 'options', () => applySessionRewind(waypoint.store, files, bad({ sessionId }), bad(null))],
      ['rewindToSavePoint(store, null)', 'input', () => rewindToSavePoint(waypoint.store, bad(null))],
      ['rewindToSavePoint(store, { turn: null })', 'input.turn', () => rewindToSavePoint(waypoint.store, bad({ sessionId, turn: null }))],
      ['history.createSession(null)', 'session', () => history.createSession(bad(null))],
      ['history.append(sessionId, null)', 'message', () => history.append(sessionId, bad(null))],
      ['history.setTitle(sessionId, 7)', 'title', () => history.setTitle(sessionId, bad(7))],
      ['history.history(null)', 'sessionId', () => history.history(bad(null))],
      ['history.history(sessionId, { last: "all" })', 'options.last', () => history.history(sessionId, bad({ last: 'all' }))],
      ['history.isOnActivePath(sessionId, null)', 'messageId', () => history.isOnActivePath(sessionId, bad(null))],
      ['history.moveHead(null)', 'input', () => history.moveHead(bad(null))],
      ['history.startSessionAt(null)', 'input', () => history.startSessionAt(bad(null))],
      ['new SessionHistory(null)', 'store', () => new SessionHistory(bad(null))],
      ['new FileRewinder(null)', 'options', () => new FileRewinder(bad(null))],
    ];
  };

  it('each call raises INVALID_ARGUMENT naming the parameter; the files, checkpoints and sessions are unchanged', async () => {
    const filesBefore = snapshotDir(workspace);
    const sessionsBefore = await waypoint.store.listSessions();
    const wrong: string[] = [];
    for (const [name, parameter, call] of calls()) {
      let caught: unknown = 'nothing thrown';
      try {
        await call();
      } catch (error) {
        caught = error;
      }
      if (!WaypointError.is(caught, 'INVALID_ARGUMENT')) {
        wrong.push(`${name}: ${WaypointError.is(caught) ? caught.code : caught instanceof Error ? `raw ${caught.name}: ${caught.message}` : String(caught)}`);
        continue;
      }
      const named = String(caught.details.parameter);
      if (typeof parameter === 'string' ? named !== parameter : !parameter.test(named)) wrong.push(`${name}: names "${named}", not ${String(parameter)}`);
      if (caught.exitCode !== 2 || !caught.message.startsWith(`Invalid ${named}`)) wrong.push(`${name}: message "${caught.message}" / exit ${caught.exitCode}`);
    }
    expect(wrong).toEqual([]);
    expect(snapshotDir(workspace)).toEqual(filesBefore);
    expect(await waypoint.store.listCheckpoints(sessionId)).toEqual([]);
    expect((await waypoint.store.listSessions()).map((session) => session.id)).toEqual(sessionsBefore.map((session) => session.id));
  });
});
