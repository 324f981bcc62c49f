import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { createRuntime, ScriptedModel, type AgentRuntime } from '../../src/runtime/index.js';
import { type EffectApprovals, startServer, type RunningServer } from '../../src/server/index.js';

export const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';

/** A JSON-RPC reply as the tests read it. */
export interface Reply {
  id: number | string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read ad-hoc fields of results.
  result?: any;
  error?: { code: number; message: string; data: { code: string; details?: Record<string, unknown> } };
}

// biome-ignore lint/suspicious/noExplicitAny: event payloads are read field by field.
export type Event = Record<string, any> & { type: string };

/** A real WebSocket client of the protocol: requests by id, and every event kept in order. */
export class RpcClient {
  readonly events: Event[] = [];
  private next = 1;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private readonly waiters: Array<{ test: (event: Event) => boolean; done: (event: Event) => void }> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.method === 'event') {
        this.events.push(message.params);
        for (const waiter of [...this.waiters])
          if (waiter.test(message.params)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.done(message.params);
          }
        return;
      }
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RpcClient> {
    const socket = new WebSocket(url, { headers });
    return new Promise((done, fail) => {
      socket.once('open', () => done(new RpcClient(socket)));
      socket.once('error', fail);
    });
  }

  call(method: string, params: unknown = {}): Promise<Reply> {
    const id = this.next++;
    return new Promise((done) => {
      this.pending.set(id, done);
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** The result, or a thrown error naming the code (for calls that must succeed). */
  // biome-ignore lint/suspicious/noExplicitAny: results are read field by field.
  async ok(method: string, params: unknown = {}): Promise<any> {
    const reply = await this.call(method, params);
    if (reply.error) throw new Error(`${method} failed: ${reply.error.data.code} ${reply.error.message}`);
    return reply.result;
  }

  sendRaw(text: string): Promise<Reply> {
    return new Promise((done) => {
      const listener = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString());
        if (message.method === 'event') return;
        this.socket.off('message', listener);
        done(message);
      };
      this.socket.on('message', listener);
      this.socket.send(text);
    });
  }

  /** The first event (already received or to come) that passes `test`. */
  waitFor(test: (event: Event) => boolean, timeoutMs = 60_000): Promise<Event> {
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no such event; got ${this.events.map((event) => event.type).join(', ')}`)), timeoutMs);
      this.waiters.push({
        test,
        done: (event) => {
          clearTimeout(timer);
          done(event);
        },
      });
    });
  }

  close(): void {
    this.socket.close();
  }
}

export interface ServerFixture {
  dir: string;
  project: string;
  storePath: string;
  waypoint: Waypoint;
  runtime: AgentRuntime;
  server: RunningServer;
  client: RpcClient;
  wsUrl: string;
  close(): Promise<void>;
}

/** A temp store and project, a runtime with the scripted model playing `steps`, a real server on a free port, one socket. */
export async function startFixture(
  steps: unknown[],
  options: { webRoot?: string; store?: string; tools?: Parameters<typeof createRuntime>[0]['tools']; approvals?: EffectApprovals } = {},
): Promise<ServerFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-serve-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  const storePath = options.store ?? join(dir, 'store', 'waypoint.db');
  const waypoint = await openWaypoint({ path: storePath });
  const runtime = createRuntime({
    waypoint,
    model: ScriptedModel.fromSteps(steps),
    idleCompression: false,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.approvals ? { approveEffect: options.approvals.approve } : {}),
  });
  const server = await startServer({
    waypoint,
    runtime,
    port: 0,
    webRoot: options.webRoot ?? join(dir, 'no-web'),
    version: 'test',
    token: TOKEN,
    pollMs: 200,
    ...(options.approvals ? { approvals: options.approvals } : {}),
  });
  const wsUrl = `ws://127.0.0.1:${server.port}/rpc?token=${TOKEN}`;
  const client = await RpcClient.open(wsUrl);
  return {
    dir,
    project,
    storePath,
    waypoint,
    runtime,
    server,
    client,
    wsUrl,
    async close() {
      client.close();
      await server.close();
      await runtime.close();
      await waypoint.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const CLI = resolve(import.meta.dirname, 'fixtures', 'cli.ts');

/** Runs the real CLI in another process against the same store. */
export function runCliProcess(args: string[], storePath: string): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args, '--store', storePath], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
