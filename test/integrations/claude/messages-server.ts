import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted assistant message: text, then tool calls (a message with tool calls ends with `tool_use`). */
export interface ScriptedReply {
  text?: string;
  tools?: Array<{ name: string; input: Record<string, unknown> }>;
}

/** A request the server got, parsed. */
export interface ReceivedRequest {
  method: string;
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are the Anthropic API's JSON, read ad hoc by the tests.
  body: any;
}

/**
 * A local stand-in for the Anthropic Messages API, enough for Claude Code's headless mode:
 * `POST /v1/messages` with `stream: true` is answered with the server-sent events the real API
 * sends (message_start, content blocks with text and input_json deltas, message_delta,
 * message_stop). Requests of the agent loop (they carry tools) get the next scripted reply in
 * order; side requests without tools (titles, summaries) get a one-word answer and consume
 * nothing. Everything else is a 404 in the API's error shape. Every request is recorded.
 */
export class MessagesServer {
  readonly requests: ReceivedRequest[] = [];
  private next = 0;
  private ids = 0;

  private constructor(
    private readonly server: Server,
    private readonly script: ScriptedReply[],
  ) {}

  static async start(script: ScriptedReply[]): Promise<MessagesServer> {
    let instance: MessagesServer | null = null;
    const server = createServer((request, response) => instance!.handle(request, response));
    instance = new MessagesServer(server, script);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Scripted replies not given yet. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  /** Requests of the agent loop (with tools), in order. */
  loopRequests(): ReceivedRequest[] {
    return this.requests.filter((request) => Array.isArray(request.body?.tools) && request.body.tools.length > 0);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = text;
      }
      this.requests.push({ method: request.method ?? '', url: request.url ?? '', body });
      const path = (request.url ?? '').split('?')[0];
      if (request.method === 'POST' && path === '/v1/messages') return this.reply(response, body as { model?: string; tools?: unknown[] });
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${request.method} ${path} here` } }));
    });
  }

  private reply(response: ServerResponse, body: { model?: string; tools?: unknown[] }): void {
    const loop = Array.isArray(body?.tools) && body.tools.length > 0;
    const scripted = loop ? this.script[this.next++] : undefined;
    const reply: ScriptedReply = scripted ?? { text: loop ? '(the script has no more replies)' : 'ok' };
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const id = ++this.ids;
    send('message_start', {
      message: {
        id: `msg_scripted_${id}`,
        type: 'message',
        role: 'assistant',
        model: body?.model ?? 'scripted',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    });
    let index = 0;
    if (reply.text !== undefined) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: reply.text } });
      send('content_block_stop', { index });
      index++;
    }
    for (const [position, tool] of (reply.tools ?? []).entries()) {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${id}_${position}`, name: tool.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) } });
      send('content_block_stop', { index });
      index++;
    }
    const stop = (reply.tools ?? []).length > 0 ? 'tool_use' : 'end_turn';
    send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
    send('message_stop', {});
    response.end();
  }
}
