import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../src/server/index.js';
import { startFixture, TOKEN, type ServerFixture } from './server-harness.js';

const STEPS = [
  { toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'one\n' } }] },
  { text: 'Wrote a.txt.' },
  { toolCalls: [{ toolName: 'edit', input: { path: 'a.txt', oldString: 'one', newString: 'ONE' } }] },
  { text: 'Edited a.txt.' },
  { text: 'A slow reply.', delayMs: 4000 },
];

let fx: ServerFixture;
let ids: { sessionId: string; firstInput: string; lastInput: string; lastReply: string; firstTurn: string };

/** What a refused request must leave as it was: every session's head, entries, checkpoints and turns, and the project's files. */
async function fingerprint(): Promise<string> {
  const { store } = fx.waypoint;
  const sessions = await store.listSessions();
  const rows = [];
  for (const session of sessions)
    rows.push([
      session.id,
      session.headMessageId,
      session.branchGeneration,
      (await store.listEntries(session.id)).length,
      (await store.listCheckpoints(session.id)).length,
      (await store.listTurns(session.id)).map((turn) => turn.status),
    ]);
  const files = readdirSync(fx.project).map((name) => [name, readFileSync(join(fx.project, name), 'utf8')]);
  return JSON.stringify({ rows, files });
}

describe('bad inputs: every method refuses with a typed error and changes nothing', () => {
  beforeAll(async () => {
    fx = await startFixture(STEPS);
    const { session } = await fx.client.ok('sessions.create', { workdir: fx.project });
    await fx.client.ok('session.subscribe', { sessionId: session.id });
    for (const text of ['write a', 'edit a']) {
      const started = await fx.client.ok('turn.send', { sessionId: session.id, text });
      await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId);
    }
    const page = await fx.client.ok('conversation.page', { sessionId: session.id });
    const inputs = page.messages.filter((message: { role: string }) => message.role === 'user');
    ids = {
      sessionId: session.id,
      firstInput: inputs[0].id,
      lastInput: inputs[1].id,
      lastReply: page.messages.at(-1).id,
      firstTurn: inputs[0].turnId,
    };
  });
  afterAll(async () => fx?.close());

  it('each method, given bad params, answers its stable code in error.data.code', async () => {
    const s = () => ids.sessionId;
    const cases: Array<[string, unknown, string]> = [
      ['server.info', { extra: 1 }, 'INVALID_ARGUMENT'],
      ['sessions.list', { limit: 0 }, 'INVALID_ARGUMENT'],
      ['sessions.create', { workdir: 'relative/dir' }, 'WORKSPACE_MISSING'],
      ['sessions.create', { workdir: '/nonexistent/dir' }, 'WORKSPACE_MISSING'],
      ['session.get', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['session.family', {}, 'INVALID_ARGUMENT'],
      ['session.tree', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['conversation.page', { sessionId: s(), limit: 1000 }, 'INVALID_ARGUMENT'],
      ['conversation.page', { sessionId: s(), at: 'msg_nope' }, 'MESSAGE_NOT_FOUND'],
      ['message.part', { messageId: ids.firstInput, index: 9 }, 'PART_NOT_FOUND'],
      ['turn.summary', { turnId: 'turn_nope' }, 'TURN_NOT_FOUND'],
      ['rewind.list', { sessionId: 5 }, 'INVALID_ARGUMENT'],
      ['workspace.read', { sessionId: s(), path: '../outside.txt' }, 'PATH_OUTSIDE_WORKSPACE'],
      ['workspace.read', { sessionId: s(), path: 'missing.txt' }, 'NOT_A_FILE'],
      ['turn.send', { sessionId: s(), text: '   ' }, 'INVALID_ARGUMENT'],
      ['turn.send', { sessionId: 'ses_nope', text: 'hi' }, 'SESSION_NOT_FOUND'],
      ['turn.stop', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['turn.compact', { sessionId: s(), instructions: 7 }, 'INVALID_ARGUMENT'],
      ['rewind.run', { sessionId: s(), kind: 'checkpoint', checkpointId: 'ckpt_nope' }, 'CHECKPOINT_NOT_FOUND'],
      ['rewind.run', { sessionId: s(), messageId: ids.firstInput, scope: 'sideways' }, 'INVALID_ARGUMENT'],
      ['rewind.previewDirect', { sessionId: 'ses_nope', kind: 'latest' }, 'SESSION_NOT_FOUND'],
      ['rewind.status', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['undo.preview', { sessionId: s() }, 'INVALID_ARGUMENT'],
      ['undo.preview', { sessionId: s(), lastTurn: true, resolutions: { 'a.txt': 'later' } }, 'INVALID_ARGUMENT'],
      ['undo.preview', { sessionId: s(), lastTurn: true, resolutions: { 'nope.txt': 'skip' } }, 'RESOLUTION_UNKNOWN_PATH'],
      ['effect.pending', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['effect.decide', { approvalId: 'apv_nope', decision: 'run' }, 'APPROVALS_OFF'],
      ['workspace.list', { sessionId: s(), path: '../' }, 'PATH_OUTSIDE_WORKSPACE'],
      ['workspace.list', { sessionId: s(), path: 'a.txt' }, 'NOT_A_DIRECTORY'],
      ['undo.apply', { sessionId: s(), previewId: 'pv_nope' }, 'PREVIEW_NOT_FOUND'],
      ['redo.preview', { sessionId: s(), rewindId: 'rw_nope' }, 'INVALID_ARGUMENT'],
      ['redo.apply', { sessionId: s(), rewindId: 'jnl_01arz3ndektsv4rrffq69g5fav' }, 'REWIND_NOT_FOUND'],
      ['redo.apply', { sessionId: s() }, 'NOTHING_TO_REDO'],
      ['edit', { sessionId: s(), messageId: ids.firstInput, text: 'x' }, 'EDIT_NOT_LAST_INPUT'],
      ['retry', { sessionId: s(), messageId: ids.firstInput }, 'RETRY_NOT_LAST_REPLY'],
      ['fork.preview', { from: 'elsewhere', sessionId: s() }, 'INVALID_ARGUMENT'],
      ['fork.create', { from: 'message', sessionId: s(), messageId: ids.firstInput }, 'FORK_NEEDS_CONFIRMATION'],
      ['side.start', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['side.ask', { sessionId: s(), text: 'hi' }, 'NOT_A_SIDE_CHAT'],
      ['session.subscribe', { sessionId: 'ses_nope' }, 'SESSION_NOT_FOUND'],
      ['session.unsubscribe', { sessionId: 5 }, 'INVALID_ARGUMENT'],
    ];
    expect(new Set(cases.map(([name]) => name))).toEqual(new Set(Object.keys(METHODS)));
    const before = await fingerprint();
    const got: string[] = [];
    for (const [name, params] of cases) {
      const reply = await fx.client.call(name, params);
      got.push(`${name} ${reply.error?.data.code ?? 'OK'} ${reply.error?.code}`);
    }
    expect(got).toEqual(cases.map(([name, , code]) => `${name} ${code} ${code === 'INVALID_ARGUMENT' ? -32602 : -32000}`));
    expect(await fingerprint()).toBe(before);
  });

  it('malformed messages: parse error, invalid request, unknown method, batches', async () => {
    expect((await fx.client.sendRaw('not json')).error?.data.code).toBe('PARSE_ERROR');
    expect((await fx.client.sendRaw('{"id":1,"method":"server.info"}')).error?.data.code).toBe('INVALID_REQUEST');
    expect((await fx.client.sendRaw('[{"jsonrpc":"2.0","id":1,"method":"server.info"}]')).error?.data.code).toBe('INVALID_REQUEST');
    expect((await fx.client.sendRaw('{"jsonrpc":"2.0","id":1,"method":"toString"}')).error?.data.code).toBe('METHOD_NOT_FOUND');
    expect((await fx.client.sendRaw('{"jsonrpc":"2.0","id":1,"method":"server.info","params":[1]}')).error?.data.code).toBe('INVALID_REQUEST');
  });

  it('subscriptions need a socket (typed refusal over HTTP)', async () => {
    const response = await fetch(`${fx.server.url}/rpc`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.subscribe', params: { sessionId: ids.sessionId } }),
    });
    expect(((await response.json()) as { error: { data: { code: string } } }).error.data.code).toBe('SOCKET_REQUIRED');
  });

  it('while a turn runs: rewinds, edits, retries and another turn refuse with TURN_RUNNING, changing nothing', async () => {
    const started = await fx.client.ok('turn.send', { sessionId: ids.sessionId, text: 'slow' });
    const before = await fingerprint();
    const page = await fx.client.ok('conversation.page', { sessionId: ids.sessionId });
    expect(page.running).toBe(true);
    for (const [name, params] of [
      ['turn.send', { sessionId: ids.sessionId, text: 'again' }],
      ['rewind.run', { sessionId: ids.sessionId, messageId: ids.firstInput, scope: 'conversation' }],
      ['edit', { sessionId: ids.sessionId, messageId: started.inputMessageId, text: 'x' }],
      ['redo.apply', { sessionId: ids.sessionId, conversation: true }],
    ] as const) {
      const reply = await fx.client.call(name, params);
      expect(reply.error?.data.code, name).toBe('TURN_RUNNING');
    }
    expect(await fingerprint()).toBe(before);
    const stopped = await fx.client.ok('turn.stop', { sessionId: ids.sessionId });
    expect(stopped).toMatchObject({ stopped: true, status: 'interrupted' });
    await fx.client.waitFor((event) => event.type === 'turn.end' && event.turnId === started.turnId && event.status === 'interrupted');
  });
});
