import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWaypoint } from '../../src/engine/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

interface Recorded {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A local HTTP server answering each POST with the next scripted response (no network). */
async function localServer(
  respond: (request: Recorded, index: number, response: ServerResponse) => void,
): Promise<{ url: string; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const recorded = { url: request.url ?? '', headers: request.headers, body: JSON.parse(body || '{}') as Record<string, unknown> };
      requests.push(recorded);
      respond(recorded, requests.length - 1, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function sse(response: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events)
    response.write(`${event.event ? `event: ${event.event}\n` : ''}data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`);
  response.end();
}

let fixture: RuntimeFixture | null = null;
let closeServer: (() => Promise<void>) | null = null;
afterEach(async () => {
  await fixture?.close();
  await closeServer?.();
  fixture = null;
  closeServer = null;
});

/** A fixture whose runtime uses a model string (the scripted model of the fixture is not used). */
async function withModel(model: string, env: NodeJS.ProcessEnv): Promise<RuntimeFixture> {
  const created = await runtimeFixture([]);
  created.runtime = createRuntime({ waypoint: created.waypoint, model, env, maxRetries: 0 });
  return created;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  data: { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta, finish_reason: finish }] },
});

describe('OpenAI-compatible provider (chat completions SSE)', () => {
  it('streams text and a tool call, runs it checkpointed, and sends the result back', async () => {
    const server = await localServer((_request, index, response) => {
      if (index === 0) {
        sse(response, [
          chunk({ role: 'assistant', content: 'Writing ' }),
          chunk({ content: 'the file.' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'write', arguments: '{"path":"a.txt",' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"content":"from openai\\n"}' } }] }),
          chunk({}, 'tool_calls'),
          { data: '[DONE]' },
        ]);
      } else {
        sse(response, [chunk({ role: 'assistant', content: 'Done.' }), chunk({}, 'stop'), { data: '[DONE]' }]);
      }
    });
    closeServer = server.close;
    fixture = await withModel(`openai-compatible:local-model@${server.url}/v1`, { WAYPOINT_OPENAI_API_KEY: 'sk-test' });
    const deltas: string[] = [];
    fixture.runtime.events.on('message-part', (event) => deltas.push(event.delta));
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    const result = await fixture.runtime.runTurn(session.id, 'Write a.txt');
    expect(result.status).toBe('complete');
    expect(result.text).toBe('Done.');
    expect(deltas.join('')).toBe('Writing the file.Done.');
    expect(readFileSync(join(fixture.workdir, 'a.txt'), 'utf8')).toBe('from openai\n');
    expect(server.requests[0]!.url).toBe('/v1/chat/completions');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0]!.body).toMatchObject({ model: 'local-model', stream: true });
    expect((server.requests[0]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toContain('edit');
    const messages = server.requests[1]!.body.messages as Array<{ role: string; tool_call_id?: string; content?: string }>;
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages[3]).toMatchObject({ tool_call_id: 'call_abc' });
    const path = await fixture.waypoint.store.history(session.id);
    expect(path[1]!.parts.map((part) => part.content)).toEqual([
      { type: 'text', text: 'Writing the file.' },
      { type: 'tool-call', toolCallId: 'call_abc', toolName: 'write', input: { path: 'a.txt', content: 'from openai\n' } },
    ]);
  });

  it('reports an endpoint that does not answer as MODEL_UNREACHABLE and leaves a valid history', async () => {
    const server = await localServer(() => {});
    await server.close(); // nothing listens on this port any more
    fixture = await withModel(`openai-compatible:local-model@${server.url}/v1`, {});
    const ends: Array<{ status: string; error: { code: string } | null }> = [];
    fixture.runtime.events.on('turn-end', (event) => ends.push(event));
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    await expect(fixture.runtime.runTurn(session.id, 'Hello?')).rejects.toMatchObject({
      code: 'MODEL_UNREACHABLE',
      message: expect.stringContaining('base URL'),
    });
    const [turn] = await fixture.waypoint.store.listTurns(session.id);
    expect(turn!.status).toBe('error');
    expect(ends).toMatchObject([{ status: 'error', error: { code: 'MODEL_UNREACHABLE' } }]);
    const path = await fixture.waypoint.store.history(session.id);
    expect(path.map((message) => `${message.role}:${message.status}`)).toEqual(['user:complete', 'assistant:error']);
  });

  it('reports a refused key as MODEL_AUTH_FAILED', async () => {
    const server = await localServer((_request, _index, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
    closeServer = server.close;
    fixture = await withModel(`openai-compatible:local-model@${server.url}/v1`, { OPENAI_API_KEY: 'wrong' });
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    await expect(fixture.runtime.runTurn(session.id, 'Hello?')).rejects.toMatchObject({ code: 'MODEL_AUTH_FAILED' });
  });
});

describe('Anthropic provider (messages SSE)', () => {
  it('streams text and a tool_use block, runs it, and sends the tool_result back', async () => {
    const server = await localServer((_request, index, response) => {
      const start = {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: `msg_${index}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-test',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        },
      };
      const stop = (reason: string) => [
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 5 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ];
      if (index === 0) {
        sse(response, [
          start,
          { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
          { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Editing now.' } } },
          { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
          {
            event: 'content_block_start',
            data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write', input: {} } },
          },
          {
            event: 'content_block_delta',
            data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"b.txt","content":' } },
          },
          {
            event: 'content_block_delta',
            data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"from anthropic\\n"}' } },
          },
          { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
          ...stop('tool_use'),
        ]);
      } else {
        sse(response, [
          start,
          { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
          { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'All set.' } } },
          { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
          ...stop('end_turn'),
        ]);
      }
    });
    closeServer = server.close;
    fixture = await withModel('anthropic:claude-test', { ANTHROPIC_API_KEY: 'sk-ant-test', WAYPOINT_ANTHROPIC_BASE_URL: `${server.url}/v1` });
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    const result = await fixture.runtime.runTurn(session.id, 'Write b.txt');
    expect(result.text).toBe('All set.');
    expect(readFileSync(join(fixture.workdir, 'b.txt'), 'utf8')).toBe('from anthropic\n');
    expect(server.requests[0]!.url).toBe('/v1/messages');
    expect(server.requests[0]!.headers['x-api-key']).toBe('sk-ant-test');
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-test', stream: true });
    const messages = server.requests[1]!.body.messages as Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
    const checkpoints = await fixture.waypoint.store.listCheckpoints(session.id);
    expect(checkpoints.map((checkpoint) => `${checkpoint.toolName} ${checkpoint.op} ${checkpoint.path}`)).toEqual(['write create workspace:b.txt']);
  });

  it('refuses to start without ANTHROPIC_API_KEY, before any turn', async () => {
    const waypointFixture = await runtimeFixture([]);
    fixture = waypointFixture;
    expect(() => createRuntime({ waypoint: waypointFixture.waypoint, model: 'anthropic:claude-test', env: {} })).toThrow(
      expect.objectContaining({ code: 'MODEL_API_KEY_MISSING' }),
    );
    expect(openWaypoint).toBeTypeOf('function');
  });
});
