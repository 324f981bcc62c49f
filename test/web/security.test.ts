import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type Browser, launchBrowser, type Server, screenshot, startServe, type WebFixture, webFixture } from './harness.js';
import { seedConversation } from './seed.js';

/** What a page sees when it lacks the token or comes from another site. */
describe.skipIf(!browserAvailable())('auth and origin refusals seen from a page', () => {
  let fixture: WebFixture;
  let server: Server;
  let browser: Browser;
  let other: HttpServer;
  let otherOrigin: string;

  beforeAll(async () => {
    fixture = webFixture([]);
    await seedConversation(fixture.storePath, { title: 'Secret talk', workdir: fixture.project, inputs: 2 });
    server = await startServe(fixture);
    browser = await launchBrowser();
    // Another site on another port of the same machine.
    other = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end('<!doctype html><title>elsewhere</title><p>another site</p>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await browser?.close();
    other?.close();
    server?.stop();
    fixture?.cleanup();
  });

  it('a wrong token gets a typed 401 and no session data', async () => {
    const response = await browser.page.goto(`${server.origin}/?token=not-the-token`);
    expect(response!.status()).toBe(401);
    const body = await browser.page.locator('body').innerText();
    expect(body).toContain('UNAUTHORIZED');
    expect(body).not.toContain('Secret talk');
  });

  it('the right token shows the sessions', async () => {
    await browser.page.goto(server.url);
    await expect.poll(() => browser.page.getByRole('list', { name: 'Sessions' }).innerText()).toContain('Secret talk');
  });

  it('a socket with a wrong token is refused and the page says so', async () => {
    const opened = await browser.page.evaluate(
      (url) =>
        new Promise<boolean>((resolve) => {
          const socket = new WebSocket(url);
          socket.onopen = () => resolve(true);
          socket.onclose = () => resolve(false);
        }),
      `${server.origin.replace('http', 'ws')}/rpc?token=wrong`,
    );
    expect(opened).toBe(false);
  });

  it('another site cannot open the socket even with the token, nor read /rpc', async () => {
    const page = await browser.context.newPage();
    await page.goto(otherOrigin);
    const ws = `${server.origin.replace('http', 'ws')}/rpc?token=${server.token}`;
    const opened = await page.evaluate(
      (url) =>
        new Promise<boolean>((resolve) => {
          const socket = new WebSocket(url);
          socket.onopen = () => resolve(true);
          socket.onclose = () => resolve(false);
        }),
      ws,
    );
    expect(opened).toBe(false);
    const read = await page.evaluate(
      async ({ origin, token }) => {
        try {
          const response = await fetch(`${origin}/rpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sessions.list', params: {} }),
          });
          return await response.text();
        } catch (error) {
          return `refused: ${(error as Error).message}`;
        }
      },
      { origin: server.origin, token: server.token },
    );
    expect(read).not.toContain('Secret talk');
    // The same request with the other site's Origin, as the server sees it: a typed 403.
    const direct = await fetch(`${server.origin}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}`, origin: otherOrigin },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sessions.list', params: {} }),
    });
    expect(direct.status).toBe(403);
    expect(await direct.text()).toContain('ORIGIN_REFUSED');
    await page.close();
  });

  it('the UI opened without its token says the connection was refused', async () => {
    const page = await browser.context.newPage();
    await page.context().clearCookies();
    const response = await page.goto(`${server.origin}/`);
    if (response!.status() === 200) {
      await expect.poll(() => page.getByRole('status', { name: 'Connection' }).innerText()).toContain('Refused');
      await screenshot(page, 'refused');
    } else expect(response!.status()).toBe(401);
    await page.close();
  });
});
