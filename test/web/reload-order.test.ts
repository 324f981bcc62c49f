/// <reference lib="dom" />
import type { Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type Browser, launchBrowser, runCli, type Server, startServe, type WebFixture, webFixture } from './harness.js';
import { type SeededTurn, seedConversation } from './seed.js';

/**
 * Two reads of the newest page in flight at once, the earlier answered last: the conversation
 * shows the later read's page, not the stale one. The page's WebSocket is routed through the test,
 * which holds back one `conversation.page` answer until a newer one has been shown.
 */
describe.skipIf(!browserAvailable())('overlapping page reads in the browser', () => {
  let fixture: WebFixture;
  let server: Server;
  let browser: Browser;
  let page: Page;
  let sessionId: string;
  let turns: SeededTurn[];
  /** Ids of the `conversation.page` requests the page sent. */
  const pageRequests = new Set<unknown>();
  /** Set to hold the next `conversation.page` answer back; it is kept here until released. */
  let holdNext = false;
  let held: { ws: WebSocketRoute; message: string | Buffer } | null = null;

  beforeAll(async () => {
    fixture = webFixture([]);
    ({ sessionId, turns } = await seedConversation(fixture.storePath, { title: 'Reloads', workdir: fixture.project, inputs: 4 }));
    server = await startServe(fixture);
    browser = await launchBrowser();
    page = browser.page;
    await page.routeWebSocket(/token=/, (ws) => {
      const upstream = ws.connectToServer();
      ws.onMessage((message) => {
        const request = JSON.parse(String(message)) as { id?: unknown; method?: string };
        if (request.method === 'conversation.page') pageRequests.add(request.id);
        upstream.send(message);
      });
      upstream.onMessage((message) => {
        const answer = JSON.parse(String(message)) as { id?: unknown };
        if (holdNext && answer.id !== undefined && pageRequests.has(answer.id)) {
          holdNext = false;
          held = { ws, message };
          return;
        }
        ws.send(message);
      });
    });
    await page.goto(`${server.url}#session=${sessionId}`);
    await page.locator('main[aria-label="Conversation pane"][aria-busy="false"]').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    server?.stop();
    fixture?.cleanup();
  });

  const shownMessages = () =>
    page.locator('main ol[aria-label="Conversation"] > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-message-id')));

  it('an earlier read answered after a later one does not bring back the older conversation', async () => {
    expect(await shownMessages()).toHaveLength(8);
    // The first rewind's read is held back; the second rewind's read is answered and shown.
    holdNext = true;
    expect(runCli(fixture, ['rewind', sessionId, 'conversation', turns[2]!.inputId]).code).toBe(0);
    await expect.poll(() => held !== null, { timeout: 20_000 }).toBe(true);
    expect(runCli(fixture, ['rewind', sessionId, 'conversation', turns[1]!.inputId]).code).toBe(0);
    const newest = [turns[0]!.inputId, turns[0]!.replyId];
    await expect.poll(shownMessages, { timeout: 20_000 }).toEqual(newest);
    // Now the held answer (the page after the first rewind: two turns) arrives, late.
    held!.ws.send(held!.message);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
    expect(await shownMessages()).toEqual(newest);
  });
});
