/// <reference lib="dom" />
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/runtime/index.js';
import { EffectApprovals } from '../../src/server/index.js';
import { startFixture, TOKEN, type ServerFixture } from '../server/server-harness.js';
import { browserAvailable, type Browser, launchBrowser, screenshot } from './harness.js';

const WEB_ROOT = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'web');
const sent: string[] = [];
const notify = defineTool({
  name: 'notify',
  description: 'Send a message to a channel',
  effect: 'external',
  inputSchema: z.object({ channel: z.string(), text: z.string() }),
  async execute(input) {
    sent.push(`${input.channel}: ${input.text}`);
    return { output: { type: 'text', value: `sent to ${input.channel}` } };
  },
});
const call = { toolName: 'notify', input: { channel: 'ops', text: 'deploying' } };

/**
 * The page answers the runtime's approval requests: the built UI in Debian's Chromium against the
 * protocol server with the scripted model and an external tool (the runtime's own kind of tool;
 * `waypoint serve` ships none, so the server runs in this process with one).
 */
describe.skipIf(!browserAvailable())('approving an external effect from the page', () => {
  let fx: ServerFixture;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    fx = await startFixture([{ toolCalls: [call] }, { toolCalls: [call] }, { text: 'Sent it twice.' }, { toolCalls: [call] }, { text: 'Declined, fine.' }], {
      tools: [notify],
      approvals: new EffectApprovals(),
      webRoot: WEB_ROOT,
    });
    const sessionId = (await fx.client.ok('sessions.create', { workdir: fx.project, title: 'Effects' })).session.id;
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`http://127.0.0.1:${fx.server.port}/?token=${TOKEN}#session=${sessionId}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  const send = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  };
  const lastReply = () => page.locator('ol[aria-label="Conversation"] > li.assistant').last();
  const requests = () => page.getByRole('region', { name: 'Waiting for your approval' });

  it('shows the session’s model', async () => {
    await expect.poll(() => page.locator('.session-model').innerText()).toContain(`Model: ${fx.runtime.modelLabel}`);
  });

  it('shows the request with why it asks; Approve runs the call and the turn goes on', async () => {
    await send('Notify ops twice');
    await expect.poll(() => requests().innerText(), { timeout: 30_000 }).toContain('an identical call already succeeded in this session');
    expect(await requests().innerText()).toContain('notify');
    expect(await requests().innerText()).toContain('"channel": "ops"');
    expect(sent).toEqual(['ops: deploying']);
    await screenshot(page, 'approval');
    await requests().getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => lastReply().innerText(), { timeout: 30_000 }).toContain('Sent it twice.');
    expect(sent).toEqual(['ops: deploying', 'ops: deploying']);
    expect(await requests().count()).toBe(0);
  });

  it('Deny, from the keyboard: the focus is on the request, the call does not run', async () => {
    await page.locator('.streaming-status').waitFor({ state: 'detached' });
    await send('Notify once more');
    await requests().getByRole('button', { name: 'Approve' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Approve');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => lastReply().innerText(), { timeout: 30_000 }).toContain('Declined, fine.');
    expect(sent).toHaveLength(2);
    expect(await requests().count()).toBe(0);
  });
});
