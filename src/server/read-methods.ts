import { lstatSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { sessionWorkspace, summarizeTurn } from '../checkpoint/index.js';
import { sessionFamily, type FamilyNode } from '../fork/index.js';
import { InvalidArgumentError } from '../model/index.js';
import { sessionModel } from '../runtime/index.js';
import { method, type Method } from './rpc.js';
import type { ServerContext } from './server-context.js';
import { ServerRequestError } from './server-errors.js';
import { sessionTree } from './session-tree.js';
import { conversationPage, sessionInfo, type SessionInfo } from './views.js';

const Id = z.string().trim().min(1).max(200);
const MAX_READ_BYTES = 2 * 1024 * 1024;

type FamilyView = Omit<FamilyNode, 'session' | 'children'> & { session: SessionInfo; children: FamilyView[] };

function familyView(context: ServerContext, node: FamilyNode): FamilyView {
  return {
    ...node,
    session: sessionInfo(node.session, context.runtime.isRunning(node.session.id)),
    children: node.children.map((child) => familyView(context, child)),
  };
}

/** The methods that read: sessions, their trees, conversation pages, parts, summaries, the `/rewind` list, workspace files. */
export const readMethods: Record<string, Method<ServerContext>> = {
  'server.info': method(z.object({}).strict(), async (context) => ({
    ...context.info,
    running: (await context.waypoint.store.listSessions()).filter((session) => context.runtime.isRunning(session.id)).map((session) => session.id),
  })),

  'sessions.list': method(
    z.object({ limit: z.number().int().min(1).max(500).default(100), before: z.number().optional() }).strict(),
    async (context, params) => {
      const all = (await context.waypoint.store.listSessions())
        .filter((session) => params.before === undefined || session.createdAt < params.before)
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
      const page = all.slice(0, params.limit);
      return {
        sessions: page.map((session) => sessionInfo(session, context.runtime.isRunning(session.id))),
        nextBefore: all.length > page.length ? page.at(-1)!.createdAt : null,
      };
    },
  ),

  'session.get': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => {
    const { store } = context.waypoint;
    const session = await store.getSession(sessionId);
    const head = session.headMessageId === null ? null : await store.findMessage(session.headMessageId);
    return {
      session: sessionInfo(session, context.runtime.isRunning(session.id)),
      pathLength: head === null ? 0 : head.depth + 1,
      turns: (await store.listTurns(session.id)).length,
      // The model the session remembers (null: none recorded), and the one this server runs turns with.
      model: await sessionModel(store, session.id),
      serverModel: context.info.model,
    };
  }),

  'session.family': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) => ({
    root: familyView(context, await sessionFamily(context.waypoint.store, sessionId)),
  })),

  'session.tree': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) =>
    sessionTree(context.waypoint.store, await context.waypoint.store.getSession(sessionId)),
  ),

  'conversation.page': method(
    z.object({ sessionId: Id, before: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(200).default(50), at: Id.optional() }).strict(),
    async (context, params) => {
      const { store } = context.waypoint;
      const session = await store.getSession(params.sessionId);
      if (params.at !== undefined) {
        const at = await store.getMessage(params.at, { parts: 'none' });
        if (at.treeId !== session.treeId)
          throw new InvalidArgumentError({
            parameter: 'params.at',
            value: params.at,
            reason: `message ${params.at} is not in session ${session.id}'s conversation tree.`,
          });
      }
      return conversationPage(store, session, { before: params.before, limit: params.limit, at: params.at, running: context.runtime.isRunning(session.id) });
    },
  ),

  'message.part': method(z.object({ messageId: Id, index: z.number().int().min(0) }).strict(), async (context, params) => {
    const message = await context.waypoint.store.getMessage(params.messageId);
    const part = message.parts.find((candidate) => candidate.index === params.index);
    if (!part)
      throw new ServerRequestError('PART_NOT_FOUND', `Message ${message.id} has no part ${params.index} (it has ${message.parts.length}).`, params, 404);
    return { messageId: message.id, index: part.index, content: part.content ?? null };
  }),

  'turn.summary': method(z.object({ turnId: Id }).strict(), async (context, { turnId }) =>
    summarizeTurn(context.waypoint.store, context.waypoint.blobs, turnId),
  ),

  'rewind.list': method(z.object({ sessionId: Id }).strict(), async (context, { sessionId }) =>
    context.rewindLists.get(context.waypoint.store, sessionId, context.runtime.isRunning(sessionId)),
  ),

  'workspace.read': method(z.object({ sessionId: Id, path: z.string().min(1).max(4096) }).strict(), async (context, params) => {
    const session = await context.waypoint.store.getSession(params.sessionId);
    const workspace = sessionWorkspace(session, context.waypoint.store.location);
    const key = /^[A-Za-z0-9_-]+:/.test(params.path) ? params.path : null;
    const resolved = key ? workspace.resolveKey(key as `${string}:${string}`) : workspace.resolve(params.path);
    let stats;
    try {
      stats = lstatSync(resolved.realPath);
    } catch {
      throw new ServerRequestError('NOT_A_FILE', `${params.path} does not exist in the session's workspace.`, { path: params.path }, 404);
    }
    if (!stats.isFile()) throw new ServerRequestError('NOT_A_FILE', `${params.path} is not a file.`, { path: params.path });
    if (stats.size > MAX_READ_BYTES)
      throw new ServerRequestError('FILE_TOO_LARGE', `${params.path} is ${stats.size} bytes; at most ${MAX_READ_BYTES} are read.`, {
        path: params.path,
        size: stats.size,
      });
    const bytes = readFileSync(resolved.realPath);
    const text = bytes.includes(0) ? null : bytes.toString('utf8');
    const utf8 = text !== null && Buffer.from(text, 'utf8').equals(bytes);
    return {
      path: resolved.relativePath,
      size: bytes.length,
      encoding: utf8 ? 'utf8' : 'base64',
      content: utf8 ? text : bytes.toString('base64'),
    };
  }),
};
