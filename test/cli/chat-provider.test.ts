import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** `waypoint chat` against a real HTTP endpoint speaking the OpenAI chat-completions stream (local, no network). */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'waypoint.js');
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'local-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

function sse(response: ServerResponse, events: unknown[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) response.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
  response.end();
}

let server: Server | null = null;
let dir: string | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = null;
  dir = null;
});

describe('waypoint chat with an OpenAI-compatible endpoint', () => {
  it('streams the reply, runs the proposed write checkpointed, sends the result back, and /undo reverts it', async () => {
    const bodies: Array<{ messages: Array<{ role: string }> }> = [];
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (data) => (body += data));
      request.on('end', () => {
        bodies.push(JSON.parse(body));
        if (bodies.length === 1) {
          sse(response, [
            chunk({ role: 'assistant', content: 'Writing ' }),
            chunk({ content: 'the file.' }),
            chunk({
              tool_calls: [
                { index: 0, id: 'call_1', type: 'function', function: { name: 'write', arguments: '{"path":"hello.txt","content":"hi from the model\\n"}' } },
              ],
            }),
            chunk({}, 'tool_calls'),
            '[DONE]',
          ]);
        } else sse(response, [chunk({ role: 'assistant', content: 'Done: hello.txt says hi.' }), chunk({}, 'stop'), '[DONE]']);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    dir = mkdtempSync(join(tmpdir(), 'waypoint-chat-provider-'));
    const project = join(dir, 'project');
    mkdirSync(project);
    const child = spawn(process.execPath, [BIN, 'chat', '--model', `openai-compatible:local-model@http://127.0.0.1:${port}/v1`], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: dir, WAYPOINT_HOME: join(dir, 'home') },
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    child.stderr.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    child.stdin.end('say hi in a file\n/undo\n1\n/exit\n');
    const code = await new Promise<number>((resolve) => child.on('exit', (exit) => resolve(exit ?? -1)));
    expect(code).toBe(0);
    expect(stdout).toContain('Writing the file.');
    expect(stdout).toContain('⏺ write hello.txt');
    expect(stdout).toContain('Done: hello.txt says hi.');
    expect(stdout).toContain('1 file changed: create hello.txt +1 -0');
    expect(stdout).toContain('Restored 1 file');
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(() => readFileSync(join(project, 'hello.txt'))).toThrow();
  });
});
