import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RpcClient, startFixture, TOKEN, type ServerFixture } from './server-harness.js';

let fx: ServerFixture;
let base: string;

/** A raw HTTP request with exactly the headers given (fetch would set Host and Origin itself). */
function raw(path: string, headers: Record<string, string>, options: { method?: string; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((done, fail) => {
    const req = request({ host: '127.0.0.1', port: fx.server.port, path, method: options.method ?? 'GET', headers, setHost: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end(options.body);
  });
}

function refusedSocket(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    socket.on('open', () => fail(new Error('the socket was accepted')));
    socket.on('error', () => {});
  });
}

describe('security: token, Host, Origin, files', () => {
  beforeAll(async () => {
    const dir = `${process.env.TMPDIR ?? '/tmp'}/waypoint-web-${process.pid}`;
    mkdirSync(join(dir, 'web', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'web', 'index.html'), '<!doctype html><title>UI</title>');
    writeFileSync(join(dir, 'web', 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT');
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'web', 'assets', 'link.txt'));
    fx = await startFixture([], { webRoot: join(dir, 'web') });
    base = `127.0.0.1:${fx.server.port}`;
  });
  afterAll(async () => fx?.close());

  it('serves the page with the token, sets the cookie the assets then load with, falls back to index.html', async () => {
    const page = await raw(`/?token=${TOKEN}`, { Host: base });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>UI</title>');
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toBe(`waypoint_token=${TOKEN}`);
    expect(String(page.headers['set-cookie'])).toContain('HttpOnly');
    expect((await raw('/assets/app.js', { Host: base, Cookie: cookie })).body).toBe('console.log(1)');
    expect((await raw('/sessions/abc', { Host: base, Cookie: cookie })).body).toContain('<title>UI</title>');
    expect((await raw('/assets/missing.js', { Host: base, Cookie: cookie })).status).toBe(404);
  });

  it('refuses requests without the right token (401, typed), by header, cookie or query', async () => {
    const attempts: Array<Record<string, string>> = [
      { Host: base },
      { Host: base, Authorization: 'Bearer wrong' },
      { Host: base, Cookie: 'waypoint_token=wrong' },
    ];
    for (const headers of attempts) {
      const reply = await raw('/', headers);
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body).error.code).toBe('UNAUTHORIZED');
    }
    expect((await raw('/?token=wrong', { Host: base })).status).toBe(401);
    const rpc = await raw(
      '/rpc',
      { Host: base, 'Content-Type': 'application/json' },
      { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"server.info"}' },
    );
    expect(rpc.status).toBe(401);
  });

  it('refuses another Host (DNS rebinding) and another Origin (cross-site), even with the token', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const rebound = await raw('/', { ...auth, Host: `evil.example:${fx.server.port}` });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe('HOST_REFUSED');
    const cross = await raw(
      '/rpc',
      { ...auth, Host: base, Origin: 'http://evil.example', 'Content-Type': 'application/json' },
      {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"sessions.create","params":{"workdir":"/tmp"}}',
      },
    );
    expect(cross.status).toBe(403);
    expect(JSON.parse(cross.body).error.code).toBe('ORIGIN_REFUSED');
    expect(await fx.waypoint.store.listSessions()).toEqual([]);
    const own = await raw(
      '/rpc',
      { ...auth, Host: `localhost:${fx.server.port}`, Origin: `http://localhost:${fx.server.port}` },
      {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"server.info"}',
      },
    );
    expect(JSON.parse(own.body).result.version).toBe('test');
  });

  it('refuses sockets without the token, from another site or to another Host, before the handshake', async () => {
    const url = `ws://${base}/rpc`;
    const none = await refusedSocket(url, {});
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body).error.code).toBe('UNAUTHORIZED');
    expect((await refusedSocket(`${url}?token=${TOKEN}`, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await refusedSocket(`${url}?token=${TOKEN}`, { Host: 'evil.example' })).status).toBe(403);
    expect((await refusedSocket(`ws://${base}/other?token=${TOKEN}`, {})).status).toBe(404);
    const ok = await RpcClient.open(`${url}?token=${TOKEN}`, { Origin: `http://${base}` });
    expect((await ok.ok('server.info')).version).toBe('test');
    ok.close();
  });

  it('serves no file outside the UI folder: traversal, encoded traversal and links out are 404', async () => {
    const auth = { Host: base, Authorization: `Bearer ${TOKEN}` };
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/assets/link.txt', '/%00']) {
      const reply = await raw(path, auth);
      expect(reply.body).not.toContain('TOP-SECRET-CONTENT');
      expect(reply.status, path).toBe(404);
    }
  });

  it('reads workspace files only inside the session workspace (typed refusal outside)', async () => {
    writeFileSync(join(fx.project, 'in.txt'), 'inside');
    const { session } = await fx.client.ok('sessions.create', { workdir: fx.project });
    expect((await fx.client.ok('workspace.read', { sessionId: session.id, path: 'in.txt' })).content).toBe('inside');
    for (const path of ['../store/waypoint.db', join(fx.dir, 'store', 'waypoint.db'), '/etc/passwd']) {
      const reply = await fx.client.call('workspace.read', { sessionId: session.id, path });
      expect(reply.error?.data.code, path).toBe('PATH_OUTSIDE_WORKSPACE');
    }
  });
});
