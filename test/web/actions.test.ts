/// <reference lib="dom" />
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, type Browser, launchBrowser, runCli, type Server, screenshot, startServe, type WebFixture, webFixture } from './harness.js';
import { seedEmpty } from './seed.js';

const NOTES = `${Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join('\n')}\n`;
const AGENT = NOTES.replace('line 2\n', 'line 2 by the agent\n');
const PERSON = AGENT.replace('line 11\n', 'line 11 by the person\n');

/**
 * Each button of the conversation in Debian's Chromium against a real `waypoint serve` with the
 * scripted model (its steps are played in the order the tests below start turns).
 */
describe.skipIf(!browserAvailable())('the conversation in the browser', () => {
  let fixture: WebFixture;
  let server: Server;
  let browser: Browser;
  let page: Page;
  let sessionId: string;

  beforeAll(async () => {
    fixture = webFixture(
      [
        { toolCalls: [{ toolName: 'write', input: { path: 'notes.txt', content: AGENT } }] },
        { text: 'Updated the second line of the notes.', delayMs: 100 },
        { text: 'Hi there.' },
        { text: 'Hello again, retried.' },
        { text: 'Bye, edited.' },
        { text: 'The side answer.' },
        { text: 'By the way answer.' },
        { toolCalls: [{ toolName: 'read', input: { path: 'missing.txt' } }] },
        { text: 'That file does not exist.' },
      ],
      { 'notes.txt': NOTES },
    );
    sessionId = await seedEmpty(fixture.storePath, fixture.project, 'Notes work');
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

  const send = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  };
  const lastReply = () => page.locator('ol[aria-label="Conversation"] > li.assistant').last();
  const idle = () => page.locator('.streaming-status').waitFor({ state: 'detached' });

  it('lists the session with its directory and kind, sends a prompt and streams the reply', async () => {
    const row = page.getByRole('list', { name: 'Sessions' }).getByRole('button', { name: /Notes work/ });
    expect(await row.innerText()).toContain(fixture.project);
    expect(await row.innerText()).toContain('session');
    await send('Update the notes');
    await expect.poll(() => lastReply().innerText(), { timeout: 30_000 }).toContain('Updated the second line of the notes.');
    await idle();
  });

  it('folds a tool call and loads its output only when opened; shows the turn’s files with +/−', async () => {
    const call = page.locator('details.tool-call').first();
    expect(await call.locator('summary').innerText()).toContain('write');
    expect(await call.locator('.tool-output').isVisible()).toBe(false);
    await call.locator('summary').click();
    await expect.poll(() => call.locator('.tool-output').innerText()).not.toBe('Loading output…');
    const files = page.getByRole('region', { name: 'Files changed in this turn' });
    await expect.poll(() => files.innerText()).toContain('notes.txt');
    expect(await files.locator('.added').innerText()).toBe('+1');
    expect(await files.locator('.removed').innerText()).toBe('−1');
    await screenshot(page, 'conversation');
  });

  it('undoes the turn past a later edit of the person by merging, shows the merge as a diff, then redoes', async () => {
    writeFileSync(join(fixture.project, 'notes.txt'), PERSON);
    await page.getByRole('button', { name: 'Undo these changes' }).click();
    const dialog = page.getByRole('dialog', { name: "Undo this turn's file changes" });
    const file = dialog.locator('li.undo-file').filter({ hasText: 'notes.txt' });
    await expect.poll(() => file.innerText()).toContain('changed since the agent wrote it');
    expect(await dialog.getByRole('button', { name: 'Apply undo' }).isDisabled()).toBe(true);
    await file.getByRole('radio', { name: /Merge/ }).check();
    const merge = dialog.getByLabel('Merge result for notes.txt');
    await expect.poll(() => merge.innerText()).toContain('-line 2 by the agent');
    expect(await merge.innerText()).not.toContain('line 11 by the person\n-');
    await expect.poll(() => dialog.getByRole('button', { name: 'Apply undo' }).isDisabled()).toBe(false);
    await screenshot(page, 'undo-dialog');
    await dialog.getByRole('button', { name: 'Apply undo' }).click();
    await dialog.getByRole('button', { name: 'Redo' }).waitFor();
    expect(fixture.read('notes.txt')).toBe(NOTES.replace('line 11\n', 'line 11 by the person\n'));
    await dialog.getByRole('button', { name: 'Redo' }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toContain('Redone');
    expect(fixture.read('notes.txt')).toBe(PERSON);
    await page.keyboard.press('Escape');
  });

  it('retries the last reply', async () => {
    await send('Say hi');
    await expect.poll(() => lastReply().innerText()).toContain('Hi there.');
    await idle();
    await lastReply().getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => lastReply().innerText()).toContain('Hello again, retried.');
    await idle();
  });

  it('edits the last input: a refusal is shown with its reason, then the edited message is sent', async () => {
    const input = page.locator('ol[aria-label="Conversation"] > li.user').last();
    await input.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit your message' });
    await dialog.getByRole('textbox').fill('Say bye');
    await dialog.getByRole('radio', { name: 'Undo them first' }).check();
    await dialog.getByRole('button', { name: 'Send edited message' }).click();
    await expect.poll(() => dialog.getByRole('alert').innerText()).toMatch(/EDIT_NOTHING_TO_UNDO/);
    await dialog.getByRole('radio', { name: 'Keep them' }).check();
    await dialog.getByRole('button', { name: 'Send edited message' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => lastReply().innerText()).toContain('Bye, edited.');
    await idle();
    expect(await page.locator('ol[aria-label="Conversation"] > li.user').last().innerText()).toContain('Say bye');
    // The tree of the session now has a branch the edit left.
    await expect.poll(() => page.getByRole('tree', { name: 'Branches of this conversation' }).locator('.off-path').count()).toBeGreaterThan(0);
  });

  it('forks a completed turn into an isolated copy, shows its path and opens it; the family tree lists it', async () => {
    await lastReply().getByRole('button', { name: 'Fork' }).click();
    const dialog = page.getByRole('dialog', { name: 'Fork from this reply' });
    // Focus stays in the dialog whatever the number of Tabs.
    for (let tab = 0; tab < 7; tab++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null)).toBe(true);
    }
    await dialog.getByRole('radio', { name: 'An isolated copy' }).check();
    await dialog.getByRole('button', { name: 'Fork' }).click();
    const path = await dialog.locator('.fork-path').innerText();
    expect(path).not.toBe(fixture.project);
    expect(existsSync(join(path, 'notes.txt'))).toBe(true);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    await dialog.getByRole('button', { name: 'Copy path' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(path);
    await dialog.getByRole('button', { name: 'Show its files' }).click();
    await expect.poll(() => dialog.getByRole('list', { name: "Files in the fork's directory" }).innerText()).toContain('notes.txt');
    await dialog.getByRole('button', { name: 'Open the fork' }).click();
    const family = page.getByRole('tree', { name: 'Sessions of this family' });
    await expect.poll(() => family.getByRole('treeitem').count()).toBe(2);
    await screenshot(page, 'family');
    await family
      .getByRole('button', { name: /Notes work/ })
      .first()
      .click();
  });

  it('asks about selected reply text in a side chat that starts empty, leaving the main conversation as it was', async () => {
    // The test before opened the parent session from the family tree: its conversation loads first.
    await expect.poll(() => lastReply().innerText()).toContain('Bye, edited.');
    const before = await page.locator('ol[aria-label="Conversation"] > li').count();
    await lastReply()
      .locator('p.text')
      .evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        document.getSelection()!.removeAllRanges();
        document.getSelection()!.addRange(range);
      });
    await page.getByRole('button', { name: 'Ask in side chat' }).click();
    const panel = page.getByRole('complementary', { name: 'Side chat' });
    expect(await panel.locator('ol[aria-label="Conversation"] > li').count()).toBe(0);
    const box = panel.getByRole('textbox', { name: 'Side chat message' });
    expect(await box.inputValue()).toContain('> Bye, edited.');
    await box.fill(`${await box.inputValue()}What does that mean?`);
    await box.press('Enter');
    await expect.poll(() => panel.innerText()).toContain('The side answer.');
    await screenshot(page, 'side-chat');
    expect(await page.locator('main ol[aria-label="Conversation"] > li').count()).toBe(before);
    await panel.getByRole('button', { name: 'Close side chat' }).click();
  });

  it('selects reply text with the keyboard alone and opens the side chat with Ctrl+Enter', async () => {
    await lastReply().locator('p.text').focus();
    for (let step = 0; step < 3; step++) await page.keyboard.press('Shift+ArrowRight');
    expect(await page.evaluate(() => document.getSelection()?.toString())).toBe('Bye');
    await page.getByRole('button', { name: 'Ask in side chat' }).waitFor();
    await page.keyboard.press('Control+Enter');
    const panel = page.getByRole('complementary', { name: 'Side chat' });
    await expect.poll(() => panel.getByRole('textbox', { name: 'Side chat message' }).inputValue()).toBe('> Bye\n\n');
    await panel.getByRole('button', { name: 'Close side chat' }).click();
  });

  it('/btw asks in a new side chat at once', async () => {
    await send('/btw what is the time?');
    const panel = page.getByRole('complementary', { name: 'Side chat' });
    await expect.poll(() => panel.innerText(), { timeout: 30_000 }).toContain('By the way answer.');
    await panel.getByRole('button', { name: 'Close side chat' }).click();
  });

  it('marks a failed tool call as an error once its output is loaded, after a reload too', async () => {
    await send('Read the missing file');
    await expect.poll(() => lastReply().innerText(), { timeout: 30_000 }).toContain('That file does not exist.');
    await idle();
    await page.reload();
    const calls = page.locator('details.tool-call');
    await expect.poll(() => calls.count()).toBe(2);
    const failed = calls.filter({ hasText: 'read' });
    await failed.locator('summary').click();
    await expect.poll(() => failed.locator('.tool-output').innerText()).toContain('missing.txt');
    expect(await failed.locator('summary .badge').innerText()).toBe('error');
    const written = calls.filter({ hasText: 'write' });
    await written.locator('summary').click();
    await expect.poll(() => written.locator('.tool-output').innerText()).not.toBe('Loading output…');
    expect(await written.locator('summary .badge').count()).toBe(0);
  });

  it('shows a rewind made by the CLI in another process without a reload', async () => {
    const first = await page.locator('ol[aria-label="Conversation"] > li.user').first().getAttribute('data-message-id');
    const cli = runCli(fixture, ['rewind', sessionId, 'conversation', first!]);
    expect(cli.code, cli.stderr).toBe(0);
    await expect.poll(() => page.locator('main ol[aria-label="Conversation"] > li').count(), { timeout: 20_000 }).toBe(0);
  });
});
