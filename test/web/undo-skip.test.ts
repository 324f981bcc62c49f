/// <reference lib="dom" />
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type Browser, launchBrowser, type Server, screenshot, startServe, type WebFixture, webFixture } from './harness.js';
import { seedEmpty } from './seed.js';

/** Undo's per-file Skip in Debian's Chromium: the skipped file keeps the person's bytes, the rest is undone, and Redo leaves it too. */
describe.skipIf(!browserAvailable())('undo with a skipped file in the browser', () => {
  let fixture: WebFixture;
  let server: Server;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    fixture = webFixture(
      [
        {
          toolCalls: [
            { toolName: 'write', input: { path: 'mine.txt', content: 'agent mine\n' } },
            { toolName: 'write', input: { path: 'other.txt', content: 'agent other\n' } },
            { toolName: 'write', input: { path: 'quiet.txt', content: 'agent quiet\n' } },
          ],
        },
        { text: 'Wrote three files.' },
      ],
      { 'mine.txt': 'mine before\n', 'other.txt': 'other before\n', 'quiet.txt': 'quiet before\n' },
    );
    const sessionId = await seedEmpty(fixture.storePath, fixture.project, 'Skip work');
    server = await startServe(fixture);
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${server.url}#session=${sessionId}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    server?.stop();
    fixture?.cleanup();
  });

  it('skips a file the person changed and a safe one; applies the rest; redo leaves the skipped files too', async () => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Write the files');
    await box.press('Enter');
    await expect
      .poll(() => page.locator('ol[aria-label="Conversation"] > li.assistant').last().innerText(), { timeout: 30_000 })
      .toContain('Wrote three files.');
    await page.locator('.streaming-status').waitFor({ state: 'detached' });
    const mine = Buffer.concat([Buffer.from('the person\n'), Buffer.from([0xe2, 0x82, 0xac, 0x0a])]);
    writeFileSync(join(fixture.project, 'mine.txt'), mine);

    await page.getByRole('button', { name: 'Undo these changes' }).click();
    const dialog = page.getByRole('dialog', { name: "Undo this turn's file changes" });
    const row = (name: string) => dialog.locator('li.undo-file').filter({ hasText: name });
    await expect.poll(() => row('mine.txt').innerText()).toContain('changed since the agent wrote it');
    const apply = dialog.getByRole('button', { name: 'Apply undo' });
    expect(await apply.isDisabled()).toBe(true);
    // Keyboard only: focus the Skip radio and select it with Space.
    await row('mine.txt').getByRole('radio', { name: /Skip/ }).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => apply.isDisabled()).toBe(false);
    await row('quiet.txt')
      .getByRole('checkbox', { name: /Skip quiet\.txt/ })
      .check();
    await expect.poll(() => row('quiet.txt').innerText()).toContain('Left as it is');
    await screenshot(page, 'undo-skip');
    await apply.click();
    await expect.poll(() => dialog.getByTestId('skipped').innerText()).toContain('mine.txt');
    expect(await dialog.getByTestId('skipped').innerText()).toContain('quiet.txt');
    expect(readFileSync(join(fixture.project, 'mine.txt')).equals(mine)).toBe(true);
    expect(fixture.read('other.txt')).toBe('other before\n');
    expect(fixture.read('quiet.txt')).toBe('agent quiet\n');

    await dialog.getByRole('button', { name: 'Redo' }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toContain('Redone');
    expect(readFileSync(join(fixture.project, 'mine.txt')).equals(mine)).toBe(true);
    expect(fixture.read('other.txt')).toBe('agent other\n');
    expect(fixture.read('quiet.txt')).toBe('agent quiet\n');
  });
});
