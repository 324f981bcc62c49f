import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One item of a scripted model response (the Responses API's output items). */
export type ScriptedItem = { type: 'message'; text: string } | { type: 'apply_patch'; patch: string } | { type: 'shell'; cmd: string };

/**
 * A local stand-in for the OpenAI Responses API, enough for Codex CLI's `codex exec`: `POST
 * …/responses` (`stream: true`) is answered with the server-sent events the real API sends
 * (response.created, one response.output_item.done per item, response.completed). The script is
 * keyed by a prompt's text: a request is answered with that prompt's next step, the step being how
 * many tool outputs follow the prompt in the request's input (so a retried request gets the same
 * answer). A prompt the script does not know gets a one-line reply. Everything else is a 404.
 */
export class ResponsesServer {
  readonly requests: Array<{ url: string; body: unknown }> = [];
  private readonly used = new Set<string>();

  private constructor(
    private readonly server: Server,
    private readonly script: Record<string, ScriptedItem[][]>,
  ) {}

  static async start(script: Record<string, ScriptedItem[][]>): Promise<ResponsesServer> {
    let instance: ResponsesServer | null = null;
    const server = createServer((request, response) => instance!.handle(request, response));
    instance = new ResponsesServer(server, script);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Scripted steps never asked for. */
  get unused(): string[] {
    return Object.entries(this.script).flatMap(([prompt, steps]) => steps.map((_, step) => `${prompt}#${step}`).filter((key) => !this.used.has(key)));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      let body: { input?: Array<{ type?: string; role?: string; content?: Array<{ text?: string }> }> } = {};
      try {
        body = JSON.parse(raw);
      } catch {
        body = {};
      }
      this.requests.push({ url: request.url ?? '', body });
      if (request.method !== 'POST' || !(request.url ?? '').endsWith('/responses') || !Array.isArray(body.input)) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const input = body.input;
      let last = -1;
      input.forEach((item, index) => {
        if (item.type === 'message' && item.role === 'user') last = index;
      });
      const prompt = (input[last]?.content ?? []).map((part) => part.text ?? '').join('');
      const step = input.slice(last).filter((item) => (item.type ?? '').endsWith('_call_output')).length;
      const key = Object.keys(this.script).find((text) => prompt.includes(text));
      const items = key === undefined ? undefined : this.script[key]![step];
      if (key !== undefined && items !== undefined) this.used.add(`${key}#${step}`);
      this.stream(response, items ?? [{ type: 'message', text: 'ok' }]);
    });
  }

  private stream(response: ServerResponse, items: ScriptedItem[]): void {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const id = `resp_${this.requests.length}`;
    const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('response.created', { response: { id } });
    for (const [index, item] of items.entries()) {
      send('response.output_item.done', { output_index: index, item: { id: `${id}_${index}`, status: 'completed', ...wire(item, `${id}_${index}`) } });
    }
    send('response.completed', { response: { id, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } });
    response.end();
  }
}

function wire(item: ScriptedItem, callId: string): Record<string, unknown> {
  if (item.type === 'message') return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: item.text }] };
  if (item.type === 'apply_patch') return { type: 'custom_tool_call', call_id: `call_${callId}`, name: 'apply_patch', input: item.patch };
  return { type: 'function_call', call_id: `call_${callId}`, name: 'exec_command', arguments: JSON.stringify({ cmd: item.cmd }) };
}
