import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError } from '../model/index.js';
import {
  EditRequest,
  ForkSessionRequest,
  PreviewRedoRequest,
  PreviewRewindRequest,
  RedoRequest,
  RetryRequest,
  RewindRequest,
  RewindStatusRequest,
} from '../operations/index.js';
import type { AgentRuntime } from '../runtime/index.js';
import { previewDiffs } from './file-diffs.js';
import { method, type Method } from './rpc.js';
import type { ServerContext } from './server-context.js';
import { ServerRequestError } from './server-errors.js';
import { sessionInfo } from './views.js';

const Id = z.string().trim().min(1).max(200);

export interface StartedTurn {
  sessionId: string;
  turnId: string;
  inputMessageId: string;
}

/**
 * Runs `start` (something that runs a turn of `sessionId` to its end) and answers once the turn has
 * started: its input stored and `turn-start` emitted. A refusal before that (a running turn, an
 * edit that is not allowed) rejects with its typed error; what happens after streams as events
 * and ends with `turn.end`, so a failure then is not thrown here.
 */
export function startedTurn(runtime: AgentRuntime, sessionId: string, start: () => Promise<unknown>): Promise<StartedTurn> {
  return new Promise<StartedTurn>((resolve, reject) => {
    let started = false;
    const off = runtime.events.on('turn-start', (event) => {
      if (event.sessionId !== sessionId || event.subagent) return;
      started = true;
      off();
      resolve({ sessionId, turnId: event.turnId, inputMessageId: event.input.id });
    });
    start().then(
      () => {
        off();
        if (!started) reject(new Error('the turn ended without starting'));
      },
      (error: unknown) => {
        off();
        if (!started) reject(error);
      },
    );
  });
}

/** The methods that act: turns, rewinds, undo and redo, edit, retry, forks, side chats, subscriptions. */
export const actionMethods: Record<string, Method<ServerContext>> = {
  'sessions.create': method(z.object({ workdir: z.string().min(1).max(4096), title: z.string().max(500).optional() }).strict(), async (context, params) => {
    if (!isAbsolute(params.workdir) || !existsSync(params.workdir) || !statSync(params.workdir).isDirectory()) {
      throw new InvalidArgumentError({
        code: 'WORKSPACE_MISSING',
        parameter: 'params.workdir',
        value: params.workdir,
        reason: 'give the absolute path of an existing directory.',
      });
    }
    const session = await context.runtime.startSession({ workdir: params.workdir, ...(params.title === undefined ? {} : { title: params.title }) });
    void context.hub.check();
    return { session: sessionInfo(session, false) };
  }),

  'turn.send': method(z.object({ sessionId: Id, text: z.string().max(1_000_000) }).strict(), async (context, params) => {
    await context.waypoint.store.getSession(params.sessionId);
    return startedTurn(context.runtime, params.sessionId, () => context.runtime.runTurn(params.sessionId, params.text));
  }),

  'turn.stop': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => {
    await context.waypoint.store.getSession(sessionId);
    // A call waiting for approval would hold the turn: stopping declines it.
    context.approvals?.denyWaiting(sessionId);
    const ended = await context.runtime.interrupt(sessionId);
    return { stopped: ended !== null, status: ended?.status ?? null };
  }),

  'turn.compact': method(z.object({ sessionId: Id, instructions: z.string().max(100_000).optional() }).strict(), async (context, params) =>
    context.runtime.compact(params.sessionId, params.instructions === undefined ? {} : { instructions: params.instructions }),
  ),

  'rewind.run': method(RewindRequest, async (context, params) => context.runtime.rewind(params)),
  'rewind.previewDirect': method(RewindRequest, async (context, params) => context.runtime.previewDirectRewind(params)),
  'rewind.status': method(RewindStatusRequest, async (context, params) => context.runtime.rewindStatus(params.sessionId)),

  'undo.preview': method(PreviewRewindRequest, async (context, params) => {
    const preview = await context.runtime.previewRewind(params);
    const session = await context.waypoint.store.getSession(preview.sessionId);
    return { previewId: context.previews.put(preview), preview, diffs: await previewDiffs(context.waypoint, session, preview.files) };
  }),

  'undo.apply': method(
    z.object({ sessionId: Id, previewId: Id, scope: z.enum(['workspace', 'both']).default('workspace') }).strict(),
    async (context, params) =>
      context.runtime.applyRewind({ sessionId: params.sessionId, scope: params.scope, preview: context.previews.get(params.previewId, params.sessionId) }),
  ),

  'redo.preview': method(PreviewRedoRequest, async (context, params) => {
    const preview = await context.runtime.previewRedo(params);
    const session = await context.waypoint.store.getSession(preview.sessionId);
    return { ...preview, diffs: await previewDiffs(context.waypoint, session, preview.files) };
  }),
  'redo.apply': method(RedoRequest, async (context, params) => context.runtime.redo(params)),

  edit: method(EditRequest, async (context, params) => {
    await context.waypoint.store.getSession(params.sessionId);
    return startedTurn(context.runtime, params.sessionId, () => context.runtime.edit(params));
  }),

  retry: method(RetryRequest, async (context, params) => {
    await context.waypoint.store.getSession(params.sessionId);
    return startedTurn(context.runtime, params.sessionId, () => context.runtime.retry(params));
  }),

  'fork.preview': method(ForkSessionRequest, async (context, params) => context.runtime.previewFork(params)),
  'fork.create': method(ForkSessionRequest, async (context, params) => context.runtime.fork(params)),

  'side.start': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => {
    const result = await context.runtime.fork({ from: 'side-chat', sessionId });
    return { session: sessionInfo(result.session, false) };
  }),

  'side.ask': method(z.object({ sessionId: Id, text: z.string().max(1_000_000) }).strict(), async (context, params) => {
    const session = await context.waypoint.store.getSession(params.sessionId);
    if (session.kind !== 'side_chat')
      throw new ServerRequestError('NOT_A_SIDE_CHAT', `Session ${session.id} is a ${session.kind} session, not a side chat: use turn.send.`, {
        sessionId: session.id,
      });
    return startedTurn(context.runtime, session.id, () => context.runtime.runTurn(session.id, params.text));
  }),

  'session.subscribe': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => {
    if (!context.client) throw new ServerRequestError('SOCKET_REQUIRED', 'Subscribe over the WebSocket at /rpc: events cannot reach a plain HTTP request.');
    await context.waypoint.store.getSession(sessionId);
    await context.hub.follow(sessionId);
    context.client.sessions.add(sessionId);
    context.rewindLists.prefetch(context.waypoint.store, sessionId);
    return { sessionId, subscribed: true };
  }),

  'session.unsubscribe': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => {
    if (!context.client) throw new ServerRequestError('SOCKET_REQUIRED', 'Subscriptions belong to a WebSocket at /rpc.');
    context.client.sessions.delete(sessionId);
    return { sessionId, subscribed: false };
  }),
};
