import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Waypoint } from '../engine/index.js';
import type { AgentRuntime } from '../runtime/index.js';
import { actionMethods } from './action-methods.js';
import { approvalMethods } from './approval-methods.js';
import { workspaceMethods } from './workspace-methods.js';
import type { EffectApprovals } from './effect-approvals.js';
import { EventHub, type EventClient } from './event-hub.js';
import { readMethods } from './read-methods.js';
import { errorBody, handleRpc, type Method } from './rpc.js';
import { allowedHosts, checkRequest, newToken, RequestRefusedError, TOKEN_COOKIE, tokenMatches, type RequestFacts } from './security.js';
import { RewindLists } from './rewind-list.js';
import { PreviewCache, type ServerContext } from './server-context.js';
import { staticFile } from './static-files.js';

/** Every protocol method (docs/protocol.md). */
export const METHODS: Readonly<Record<string, Method<ServerContext>>> = { ...readMethods, ...actionMethods, ...approvalMethods, ...workspaceMethods };

export interface ServeOptions {
  waypoint: Waypoint;
  runtime: AgentRuntime;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** The built UI (`dist/web`). */
  webRoot: string;
  version: string;
  /** The token (default: a fresh random one); tests pass their own. */
  token?: string;
  /** How often other processes' changes are looked for besides the file watch (default 1000 ms). */
  pollMs?: number;
  /** The approvals the runtime was created with (`approveEffect: approvals.approve`): its requests are shown to the page. */
  approvals?: EffectApprovals;
}

export interface RunningServer {
  url: string;
  /** The URL to open: `url` with the token. */
  openUrl: string;
  token: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Starts `waypoint serve`: Hono on Node's HTTP server for the page, its files and `POST /rpc`, and a
 * WebSocket at `/rpc` (the `ws` package on the server's `upgrade` event, so Host, Origin and token
 * are checked on the upgrade request and a refusal is an HTTP answer before any handshake). Every
 * request needs the start's token; refusals change nothing.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  const hub = new EventHub(options.waypoint.store, options.runtime);
  const shared = {
    waypoint: options.waypoint,
    runtime: options.runtime,
    hub,
    previews: new PreviewCache(),
    rewindLists: new RewindLists(),
    approvals: options.approvals ?? null,
    info: { version: options.version, model: options.runtime.modelLabel, store: options.waypoint.store.location },
  };
  let policy = { token, hosts: new Set<string>() };
  const approvals = options.approvals;
  const offApprovals = approvals?.on((event) => hub.notify(event.sessionId, event));
  if (approvals) approvals.canAsk = (sessionId) => hub.followed(sessionId);

  const app = new Hono();
  const refuse = (c: Context, error: RequestRefusedError) =>
    c.json({ error: { code: error.code, message: error.message } }, error.httpStatus as 401 | 403 | 404);
  app.use('*', async (c, next) => {
    try {
      checkRequest(
        factsOf((name) => c.req.header(name), c.req.query('token') ?? null),
        policy,
      );
    } catch (error) {
      if (error instanceof RequestRefusedError) return refuse(c, error);
      throw error;
    }
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    await next();
  });
  app.post('/rpc', async (c) => {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) return c.json({ jsonrpc: '2.0', id: null, error: tooLarge() }, 413);
    const reply = await handleRpc(text, METHODS, { ...shared, client: null });
    return reply === null ? c.body(null, 204) : c.json(reply);
  });
  app.get('*', (c) => {
    const file = staticFile(options.webRoot, c.req.path);
    if (!file) return refuse(c, new RequestRefusedError('NOT_FOUND', `Nothing at ${c.req.path}.`, 404));
    const queryToken = c.req.query('token');
    if (queryToken && tokenMatches(token, queryToken) && file.type.startsWith('text/html'))
      c.header('Set-Cookie', `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    c.header('Content-Type', file.type);
    if (file.type.startsWith('text/html'))
      c.header(
        'Content-Security-Policy',
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      );
    return c.body(file.body as Uint8Array<ArrayBuffer>);
  });
  app.all('*', (c) => refuse(c, new RequestRefusedError('NOT_FOUND', `Nothing at ${c.req.method} ${c.req.path}.`, 404)));

  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    try {
      if (url.pathname !== '/rpc') throw new RequestRefusedError('NOT_FOUND', `No socket at ${url.pathname}: connect to /rpc.`, 404);
      checkRequest(
        factsOf((name) => headerOf(request, name), url.searchParams.get('token')),
        policy,
      );
    } catch (error) {
      const refused = error instanceof RequestRefusedError ? error : new RequestRefusedError('NOT_FOUND', 'Refused.', 404);
      const body = JSON.stringify({ error: { code: refused.code, message: refused.message } });
      socket.end(
        `HTTP/1.1 ${refused.httpStatus} ${refused.httpStatus === 401 ? 'Unauthorized' : refused.httpStatus === 403 ? 'Forbidden' : 'Not Found'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => attach(ws));
  });

  const attach = (ws: WebSocket) => {
    const client: EventClient = {
      sessions: new Set(),
      send: (text) => {
        if (ws.readyState === ws.OPEN) ws.send(text);
      },
    };
    hub.add(client);
    const context: ServerContext = { ...shared, client };
    ws.on('message', (data, isBinary) => {
      if (isBinary)
        return client.send(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Send text frames.', data: { code: 'INVALID_REQUEST' } } }),
        );
      void handleRpc(data.toString(), METHODS, context).then((reply) => {
        if (reply) client.send(JSON.stringify(reply));
      });
    });
    ws.on('close', () => hub.remove(client));
    ws.on('error', () => hub.remove(client));
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  policy = { token, hosts: allowedHosts(host, port) };
  await hub.start(options.pollMs);
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}`;
  return {
    url,
    openUrl: `${url}/?token=${token}`,
    token,
    host,
    port,
    async close() {
      offApprovals?.();
      if (approvals) {
        approvals.canAsk = () => false;
        approvals.denyWaiting();
      }
      await hub.close();
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function factsOf(header: (name: string) => string | undefined, queryToken: string | null): RequestFacts {
  return { host: header('host'), origin: header('origin'), authorization: header('authorization'), cookie: header('cookie'), queryToken };
}

function tooLarge() {
  return errorBody(new RequestRefusedError('NOT_FOUND', 'Message too large.', 413));
}
