/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type Browser, launchBrowser, runCli, type Server, screenshot, startServe, type WebFixture, webFixture } from './harness.js';
import { type SeededTurn, seedConversation, seedEmpty } from './seed.js';

/**
 * The `/rewind` list in Debian's Chromium against a real `waypoint serve`: every acceptance
 * scenario of the list, one by one.
 */
describe.skipIf(!browserAvailable())('the /rewind list in the browser', () => {
  let fixture: WebFixture;
  let server: Server;
  let browser: Browser;
  let page: Page;
  let long: { sessionId: string; turns: SeededTurn[]; summaryId: string | null };
  let multi: { sessionId: string; turns: SeededTurn[]; summaryId: string | null };
  let huge: { sessionId: string; turns: SeededTurn[]; summaryId: string | null };
  let empty: string;
  let streaming: string;

  beforeAll(async () => {
    fixture = webFixture([{ text: 'A slow reply, streamed word by word so the turn runs for a while.', delayMs: 1500 }]);
    long = await seedConversation(fixture.storePath, { title: 'Long talk', workdir: fixture.project, inputs: 30, noise: true });
    multi = await seedConversation(fixture.storePath, { title: 'Compacted talk', workdir: fixture.project, inputs: 5, compactAfter: 2, noise: true });
    huge = await seedConversation(fixture.storePath, { title: 'Huge talk', workdir: fixture.project, inputs: 300 });
    empty = await seedEmpty(fixture.storePath, fixture.project, 'Empty talk');
    streaming = await seedEmpty(fixture.storePath, fixture.project, 'Streaming talk');
    server = await startServe(fixture);
    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    server?.stop();
    fixture?.cleanup();
  });

  const open = async (sessionId: string) => {
    await page.goto(`${server.url}#session=${sessionId}`);
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    // The input box shows before the conversation's first page has arrived; the pane is busy until then.
    await page.locator('main[aria-label="Conversation pane"][aria-busy="false"]').waitFor();
  };
  const typeCommand = async (command: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(command);
    await box.press('Enter');
  };
  const options = () => page.getByRole('listbox', { name: 'Your messages' }).getByRole('option');
  const selectedText = async () => (await page.locator('[role="option"][aria-selected="true"]').innerText()).split('\n')[0];
  const shownMessages = () =>
    page.locator('ol[aria-label="Conversation"] > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-message-id')));

  it('lists every input the person typed, before a compaction too, newest selected, without meta or task notifications', async () => {
    await open(multi.sessionId);
    await typeCommand('/rewind');
    await options().first().waitFor();
    expect(await options().count()).toBe(5);
    const texts = await options().locator('.preview').allInnerTexts();
    expect(texts).toEqual(multi.turns.map((turn) => turn.text));
    expect(texts.join('\n')).not.toContain('hook injection');
    expect(texts.join('\n')).not.toContain('background task finished');
    expect(await selectedText()).toBe(multi.turns[4]!.text);
    expect(await options().nth(0).locator('.badge').innerText()).toBe('before compaction');
    // A list, not an autocomplete: the listbox has focus and the input box was emptied.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('listbox');
    await screenshot(page, 'rewind-list');
    await page.keyboard.press('Escape');
  });

  it('moves the selection with ↑/↓ and scrolls it into view; Esc closes the list with no change', async () => {
    await open(long.sessionId);
    const before = await shownMessages();
    expect(before.length).toBeGreaterThan(0);
    await typeCommand('/rewind');
    await options().first().waitFor();
    expect(await options().count()).toBe(30);
    const inView = async (index: number) =>
      page.evaluate((at) => {
        const list = document.querySelector('[role="listbox"]')!.getBoundingClientRect();
        const item = document.querySelector(`[data-index="${at}"]`)!.getBoundingClientRect();
        return item.top >= list.top - 1 && item.bottom <= list.bottom + 1;
      }, index);
    expect(await inView(29)).toBe(true);
    expect(await inView(0)).toBe(false);
    for (let step = 0; step < 29; step++) await page.keyboard.press('ArrowUp');
    expect(await selectedText()).toBe(long.turns[0]!.text);
    expect(await inView(0)).toBe(true);
    await page.keyboard.press('ArrowDown');
    expect(await selectedText()).toBe(long.turns[1]!.text);
    await page.keyboard.press('Escape');
    expect(await page.getByRole('listbox').count()).toBe(0);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await shownMessages()).toEqual(before);
  });

  it('a long list draws only the rows in view, yet every input is reachable with the keys', async () => {
    await open(huge.sessionId);
    await typeCommand('/rewind');
    await options().first().waitFor();
    expect(await selectedText()).toBe(huge.turns[299]!.text);
    const drawn = await options().count();
    expect(drawn).toBeLessThan(100);
    expect(await options().first().getAttribute('aria-setsize')).toBe('300');
    await page.keyboard.press('Home');
    expect(await selectedText()).toBe(huge.turns[0]!.text);
    for (let step = 0; step < 150; step++) await page.keyboard.press('ArrowDown');
    expect(await selectedText()).toBe(huge.turns[150]!.text);
    const selected = page.locator('[role="option"][aria-selected="true"]');
    expect(await selected.getAttribute('aria-posinset')).toBe('151');
    const inView = await selected.evaluate((item) => {
      const list = item.closest('[role="listbox"]')!.getBoundingClientRect();
      const box = item.getBoundingClientRect();
      return box.top >= list.top - 1 && box.bottom <= list.bottom + 1;
    });
    expect(inView).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.getByRole('dialog', { name: 'Rewind the conversation?' }).innerText()).toContain(huge.turns[150]!.text);
    await page.keyboard.press('Escape');
  });

  it('Enter and a click open the same confirmation as the message’s own "Rewind to here"', async () => {
    await open(long.sessionId);
    const message = page.locator(`li[data-message-id="${long.turns[27]!.inputId}"]`);
    await message.getByRole('button', { name: 'Rewind to here' }).click();
    const fromButton = await page.getByRole('dialog').innerText();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog').count()).toBe(0);

    await typeCommand('/rewind');
    await options().first().waitFor();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('dialog', { name: 'Rewind the conversation?' }).innerText()).toBe(fromButton);
    await page.keyboard.press('Escape');

    await typeCommand('/rewind');
    await options().nth(27).click();
    expect(await page.getByRole('dialog', { name: 'Rewind the conversation?' }).innerText()).toBe(fromButton);
    await page.keyboard.press('Escape');
  });

  it('rewinding after a compaction shows what the model is sent (from the summary), puts the draft back at the end of the focused box', async () => {
    await open(multi.sessionId);
    await typeCommand('/rewind');
    await options().first().waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Rewind' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const box = page.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => box.inputValue()).toBe(multi.turns[4]!.text);
    const caret = await box.evaluate((element: HTMLTextAreaElement) => ({
      focused: document.activeElement === element,
      start: element.selectionStart,
      end: element.selectionEnd,
      length: element.value.length,
    }));
    expect(caret).toEqual({ focused: true, start: caret.length, end: caret.length, length: multi.turns[4]!.text.length });
    // c u3 a3 u4 a4: the summary first, nothing before it shown.
    const t = multi.turns;
    await expect.poll(shownMessages).toEqual([multi.summaryId, t[2]!.inputId, t[2]!.replyId, t[3]!.inputId, t[3]!.replyId]);
    await screenshot(page, 'after-rewind');
  });

  it('rewinds to an input before the compaction: the summary and everything after it go', async () => {
    await open(multi.sessionId);
    await typeCommand('/rewind');
    await options().first().waitFor();
    expect(await options().count()).toBe(4);
    await page.keyboard.press('Home');
    expect(await selectedText()).toBe(multi.turns[0]!.text);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Rewind' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(multi.turns[0]!.text);
    await expect.poll(shownMessages).toEqual([]);
  });

  it('shows an empty state when nothing was typed, closed by Esc', async () => {
    await open(empty);
    await typeCommand('/rewind');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Nothing to rewind to' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    expect(await page.locator('.rewind-list').count()).toBe(0);
  });

  it('is ignored while a reply streams', async () => {
    await open(streaming);
    await typeCommand('Tell me slowly.');
    await page.locator('.message.assistant').first().waitFor();
    await typeCommand('/rewind');
    expect(await page.locator('.rewind-list').count()).toBe(0);
    expect(await page.getByText('/rewind is ignored while a reply is streaming.').count()).toBe(1);
  });

  it('a failed rewind leaves the input box as it was', async () => {
    await open(long.sessionId);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('half-written thought');
    await page.locator(`li[data-message-id="${long.turns[20]!.inputId}"]`).getByRole('button', { name: 'Rewind to here' }).click();
    // Another terminal rewinds first: the target is no longer on the conversation.
    const cli = runCli(fixture, ['rewind', long.sessionId, 'conversation', long.turns[5]!.inputId]);
    expect(cli.code, cli.stderr).toBe(0);
    await page.getByRole('dialog').getByRole('button', { name: 'Rewind' }).click();
    await page.getByRole('dialog').getByRole('alert').waitFor();
    expect(await box.inputValue()).toBe('half-written thought');
  });
});
